//! The built-in tools, one per file, and the default registry in the order
//! the model sees them (cheapest and most useful first).

mod ask;
mod bash;
mod exec;
mod exec_command;
mod list;
mod move_path;
mod patch;
mod read;
mod remove;
mod replace;
mod search;
mod seen;
mod sloc;
mod todo;
#[cfg(feature = "webfetch")]
mod webfetch;
mod write;
mod write_stdin;

pub use ask::AskTool;
pub use bash::BashTool;
pub use exec::ExecTool;
pub use exec::quote;
pub use exec_command::ExecCommandTool;
pub use list::ListTool;
pub use move_path::MoveTool;
pub use patch::PatchTool;
pub use read::ReadTool;
pub use remove::RemoveTool;
pub use replace::ReplaceTool;
pub use search::SearchTool;
pub use sloc::SlocTool;
pub use todo::TodoTool;
#[cfg(feature = "webfetch")]
pub use webfetch::{
    DEFAULT_MAX_BODY_BYTES, DEFAULT_TIMEOUT, Resolve, SystemResolver, WebFetchTool,
};
pub use write::WriteTool;
pub use write_stdin::WriteStdinTool;

use crate::registry::{Registry, Tool};

/// Every built-in tool. Which of them a model sees depends on the policy
/// ([`Registry::specs`]).
pub fn default_registry() -> Registry {
    let tools: Vec<Box<dyn Tool>> = vec![
        Box::new(ListTool::new()),
        Box::new(ReadTool::new()),
        Box::new(SearchTool::new()),
        Box::new(SlocTool::new()),
        Box::new(WriteTool::new()),
        Box::new(ReplaceTool::new()),
        Box::new(PatchTool::new()),
        Box::new(MoveTool::new()),
        Box::new(RemoveTool::new()),
        Box::new(TodoTool::new()),
        Box::new(BashTool::new()),
        Box::new(ExecTool::new()),
        Box::new(ExecCommandTool::new()),
        Box::new(WriteStdinTool::new()),
        #[cfg(feature = "webfetch")]
        Box::new(WebFetchTool::new()),
        Box::new(AskTool::new()),
    ];
    Registry::new(tools)
}
