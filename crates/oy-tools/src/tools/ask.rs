//! `ask`: put a question to the person (offered only in interactive sessions).

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use crate::args::parse_args;
use crate::context::Invocation;
use crate::error::ToolError;
use crate::output::ToolOutput;
use crate::registry::Tool;
use crate::spec::{Effect, LazySpec, ToolSpec};

/// Arguments of `ask`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct AskArgs {
    question: String,
}

/// The `ask` tool.
pub struct AskTool {
    spec: LazySpec,
}

impl AskTool {
    /// Builds the tool.
    pub fn new() -> Self {
        Self {
            spec: LazySpec::new::<AskArgs>(
                "ask",
                "Ask the user a question. Only for genuine ambiguity you cannot resolve by reading.",
                Effect::AskUser,
            ),
        }
    }
}

impl Default for AskTool {
    fn default() -> Self {
        Self::new()
    }
}

impl Tool for AskTool {
    fn spec(&self) -> &ToolSpec {
        self.spec.get()
    }

    fn name(&self) -> &str {
        self.spec.name()
    }

    fn effect(&self) -> Effect {
        self.spec.effect()
    }

    fn example(&self) -> &'static str {
        r#"{"question":"Should the new flag default to on?"}"#
    }

    fn run(&self, call: &Invocation<'_>, args: &Value) -> Result<ToolOutput, ToolError> {
        let args: AskArgs = parse_args("ask", args, self.example())?;
        let Some(asker) = call.ctx().asker() else {
            return Err(ToolError::NotOffered {
                tool: "ask".to_owned(),
                reason: "no interactive user is attached".to_owned(),
                hint: "decide yourself and say what you assumed".to_owned(),
            });
        };
        match asker.ask(args.question.trim()) {
            Some(answer) if !answer.trim().is_empty() => Ok(ToolOutput::ok(answer)),
            _ => Ok(ToolOutput::ok(
                "(the user gave no answer; decide yourself and say what you assumed)",
            )),
        }
    }
}
