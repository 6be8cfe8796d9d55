//! The `Tool` trait and the `Registry` that runs a call end to end: look
//! up, check the mode offers it, parse, run (the tool calls `authorize`
//! before any side effect), cap the output, record the outcome, emit events.
//! Besides its fixed tools it asks its [`ToolSource`]s (MCP servers) for
//! the tools they offer now.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;

use crate::args::parse_json;
use crate::context::{Invocation, ToolContext};
use crate::error::ToolError;
use crate::events::{CallStatus, ToolCallFinished, ToolCallStarted, ToolEvent};
use crate::limit::limit;
use crate::output::ToolOutput;
use crate::spec::{Effect, ToolSpec};

/// One tool. Implementations live in `tools/`, one per file. A tool sets
/// how its call ended on its output ([`ToolOutput::with_status`], the exit
/// code of its command, the diff of its change) for `tool_call_finished`.
pub trait Tool: Send + Sync {
    /// Name, description, schema and effect.
    fn spec(&self) -> &ToolSpec;

    /// The name the model calls it by; built-in tools answer without
    /// generating their schema ([`crate::LazySpec`]). An override must
    /// agree with [`Self::spec`]: lookups and the policy use this one.
    fn name(&self) -> &str {
        &self.spec().name
    }

    /// The strongest side effect it can have, likewise (the policy decides
    /// by it).
    fn effect(&self) -> Effect {
        self.spec().effect
    }

    /// A minimal valid arguments object, shown in argument errors.
    fn example(&self) -> &str;

    /// Runs one call. Any side effect must be preceded by
    /// [`Invocation::authorize`].
    fn run(&self, call: &Invocation<'_>, args: &Value) -> Result<ToolOutput, ToolError>;
}

/// Tools that come and go while a session runs (an MCP server's): the
/// registry asks for the current set whenever it lists or looks up tools.
/// Implemented by a higher layer (`oy-mcp`).
pub trait ToolSource: Send + Sync {
    /// Brings the set up to date before a model request: starts what the
    /// policy of `ctx` would offer and was not started, lists again what
    /// changed. Never fails: a source reports its own trouble, and a tool
    /// it cannot offer is simply not in [`Self::tools`].
    fn refresh<'a>(&'a self, ctx: &'a ToolContext)
    -> Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

    /// The tools offered now, in order.
    fn tools(&self) -> Vec<Arc<dyn Tool>>;
}

/// The set of tools, in the order the model sees them.
pub struct Registry {
    tools: Vec<Arc<dyn Tool>>,
    sources: Vec<Arc<dyn ToolSource>>,
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.current().iter().map(|tool| tool.name().to_owned()))
            .finish()
    }
}

impl Registry {
    /// A registry holding exactly `tools`.
    pub fn new(tools: Vec<Box<dyn Tool>>) -> Self {
        Self {
            tools: tools.into_iter().map(Arc::from).collect(),
            sources: Vec::new(),
        }
    }

    /// Adds a tool at the end (user tools from `tools.json`). The caller
    /// checks for name clashes first ([`crate::parse_manifest`] does).
    pub fn push(&mut self, tool: Box<dyn Tool>) {
        self.tools.push(Arc::from(tool));
    }

    /// Adds a source whose tools follow the fixed ones. The source refuses
    /// a name that [`Self::names`] holds.
    pub fn add_source(&mut self, source: Arc<dyn ToolSource>) {
        self.sources.push(source);
    }

    /// Brings every source up to date (see [`ToolSource::refresh`]); the
    /// agent calls it before each model request. Nothing to do without
    /// sources.
    pub async fn refresh(&self, ctx: &ToolContext) {
        for source in &self.sources {
            source.refresh(ctx).await;
        }
    }

    /// The fixed tools, then each source's current ones.
    fn current(&self) -> Vec<Arc<dyn Tool>> {
        let mut tools = self.tools.clone();
        for source in &self.sources {
            tools.extend(source.tools());
        }
        tools
    }

    /// The names of the fixed tools (built-in and `tools.json`), for clash
    /// checks.
    pub fn names(&self) -> std::collections::BTreeSet<String> {
        self.tools
            .iter()
            .map(|tool| tool.name().to_owned())
            .collect()
    }

    /// Every tool, whatever the policy.
    pub fn all_specs(&self) -> Vec<ToolSpec> {
        self.current()
            .iter()
            .map(|tool| tool.spec().clone())
            .collect()
    }

    /// The tools the context's policy offers to the model.
    pub fn specs(&self, ctx: &ToolContext) -> Vec<ToolSpec> {
        let policy = ctx.policy();
        self.current()
            .iter()
            .filter(|tool| policy.offers(tool.effect()))
            .map(|tool| tool.spec().clone())
            .collect()
    }

    /// The tool named `name`, if any.
    pub fn get(&self, name: &str) -> Option<Arc<dyn Tool>> {
        if let Some(tool) = self.tools.iter().find(|tool| tool.name() == name) {
            return Some(Arc::clone(tool));
        }
        self.sources
            .iter()
            .flat_map(|source| source.tools())
            .find(|tool| tool.name() == name)
    }

    /// Runs a call whose arguments arrive as raw text (as a model sends
    /// them). `call_id` is the provider's id for the call: the events, the
    /// ledger and the transcript all name the call by it. Every call, also
    /// one for an unknown tool or with unparsable arguments, is reported by
    /// exactly one `tool_call_started` and one `tool_call_finished`.
    pub fn invoke_raw(
        &self,
        ctx: &ToolContext,
        call_id: &str,
        name: &str,
        raw_args: &str,
    ) -> ToolOutput {
        self.reported(ctx, call_id, name, raw_args.to_owned(), || {
            let tool = self.lookup(ctx, name)?;
            let args = parse_json(name, raw_args, tool.example())?;
            Ok(self.run(ctx, call_id, &*tool, &args))
        })
    }

    /// Like [`Self::invoke_raw`], but an unknown tool or unparsable JSON is
    /// returned as `Err` (and reported by no event) so a command line can
    /// treat it as a usage error.
    pub fn invoke_raw_checked(
        &self,
        ctx: &ToolContext,
        call_id: &str,
        name: &str,
        raw_args: &str,
    ) -> Result<ToolOutput, ToolError> {
        let tool = self.lookup(ctx, name)?;
        let args = parse_json(name, raw_args, tool.example())?;
        Ok(self.reported(ctx, call_id, name, raw_args.to_owned(), || {
            Ok(self.run(ctx, call_id, &*tool, &args))
        }))
    }

    /// Runs a call whose arguments are already JSON; reported like
    /// [`Self::invoke_raw`].
    pub fn invoke(&self, ctx: &ToolContext, call_id: &str, name: &str, args: &Value) -> ToolOutput {
        self.reported(ctx, call_id, name, args.to_string(), || {
            Ok(self.run(ctx, call_id, &*self.lookup(ctx, name)?, args))
        })
    }

    /// Runs a read-only call on the person's behalf (a file they attach to
    /// their prompt): the same lookup, policy check, tool and output cap
    /// as a model's call, so what is attached is exactly what the model
    /// would have read — but reported by no event (the model did not ask),
    /// and a failure returned as `Err` for the person to read. Only a tool
    /// whose effect is [`Effect::Read`] runs this way: anything else needs
    /// the approval gate a model's call passes.
    pub fn run_read_only(
        &self,
        ctx: &ToolContext,
        call_id: &str,
        name: &str,
        args: &Value,
    ) -> Result<ToolOutput, ToolError> {
        let tool = self.lookup(ctx, name)?;
        if tool.effect() != Effect::Read {
            return Err(ToolError::NotOffered {
                tool: name.to_owned(),
                reason: "only tools that read run without the model asking".to_owned(),
                hint: String::new(),
            });
        }
        let call = ctx.begin_call(call_id, tool.name(), args);
        let output = tool.run(&call, args)?;
        Ok(capped(ctx, output))
    }

    /// Runs `call` between its `tool_call_started` and `tool_call_finished`
    /// events; an `Err` becomes the model's `TOOL_ERROR`.
    fn reported(
        &self,
        ctx: &ToolContext,
        call_id: &str,
        name: &str,
        arguments: String,
        call: impl FnOnce() -> Result<ToolOutput, ToolError>,
    ) -> ToolOutput {
        let sandbox = self
            .get(name)
            .filter(|tool| tool.effect() == Effect::Process)
            .map(|_| ctx.sandbox_note());
        ctx.emit(&ToolEvent::ToolCallStarted(ToolCallStarted {
            call_id: call_id.to_owned(),
            tool: name.to_owned(),
            arguments,
            sandbox,
        }));
        let started = Instant::now();
        let output = call().unwrap_or_else(|error| ToolOutput::error(&error));
        ctx.emit(&ToolEvent::ToolCallFinished(ToolCallFinished {
            call_id: call_id.to_owned(),
            tool: name.to_owned(),
            ok: output.ok,
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            output_bytes: output.text.len(),
            truncated: output.truncated,
            output: output.text.clone(),
            status: output.status,
            exit_code: output.exit_code,
            diff: output.diff.clone(),
        }));
        output
    }

    fn lookup(&self, ctx: &ToolContext, name: &str) -> Result<Arc<dyn Tool>, ToolError> {
        let offered = || {
            self.specs(ctx)
                .iter()
                .map(|spec| spec.name.to_string())
                .collect::<Vec<_>>()
        };
        let tool = self.get(name).ok_or_else(|| ToolError::UnknownTool {
            name: name.to_owned(),
            available: offered(),
        })?;
        let effect = tool.effect();
        if !ctx.policy().offers(effect) {
            return Err(ToolError::NotOffered {
                tool: name.to_owned(),
                reason: format!("mode `{}` does not offer it", ctx.policy().mode),
                hint: format!(
                    "use one of the tools this mode offers ({}); {}",
                    offered().join(", "),
                    ctx.policy().hint_for(effect)
                ),
            });
        }
        Ok(tool)
    }

    /// Runs a looked-up tool and caps what the model will see; the
    /// callers report the call.
    fn run(&self, ctx: &ToolContext, call_id: &str, tool: &dyn Tool, args: &Value) -> ToolOutput {
        let call = ctx.begin_call(call_id, tool.name(), args);
        let mut output = match tool.run(&call, args) {
            Ok(output) => output,
            Err(error) => ToolOutput::error(&error),
        };
        output.refusal = call.refusal();
        if !output.ok && call.was_cancelled() {
            output.status = CallStatus::Cancelled;
        }
        if call.side_effect_recorded() {
            ctx.ledger().record_outcome(call_id, output.ok);
            if let Some(checkpoints) = ctx.checkpoints() {
                // A failure leaves the new state unknown, which undo
                // accepts (docs/undo.md).
                let _ = checkpoints.after_call(ctx.workspace());
            }
        }
        capped(ctx, output)
    }
}

/// `output` cut to the context's cap, the uncut text kept beside it.
fn capped(ctx: &ToolContext, mut output: ToolOutput) -> ToolOutput {
    let limited = limit(&output.text, ctx.output_limit());
    if limited.truncated() {
        let shown = limited.text.into_owned();
        output.full_text = Some(std::mem::replace(&mut output.text, shown));
        output.truncated = true;
    }
    output
}
