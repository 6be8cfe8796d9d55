//! The test MCP server on stdio (see `oy_mcp::test_server`). Flags:
//! `--extra-tool NAME` (repeatable), `--hostile`, `--exit-at-start`
//! (crashes before the handshake), `--hang-at-start` (never answers).
//! It is also a sandbox launcher, so tests can confine it as oy would.

use oy_mcp::test_server::{Options, TestServer};

fn main() -> std::io::Result<()> {
    if let Some(code) = oy_tools::sandbox::dispatch(std::env::args_os()) {
        std::process::exit(code);
    }
    let mut options = Options::default();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--extra-tool" => options.extra_tools.extend(args.next()),
            "--hostile" => options.hostile = true,
            "--exit-at-start" => std::process::exit(7),
            "--hang-at-start" => loop {
                std::thread::sleep(std::time::Duration::from_secs(60));
            },
            _ => {}
        }
    }
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?
        .block_on(TestServer::new(options).serve_stdio())
}
