//! `cutoff match` on the command line: its cutechess-style arguments go to
//! [`config::parse_args`](super::config::parse_args), Ctrl-C stops the match between games,
//! and the summary is printed at the end.

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use cutoff::games::GameKind;

/// `cutoff match`: the match arguments, read by the match runner's own parser.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct MatchArgs {
    /// The match arguments.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub args: Vec<String>,
}

impl MatchArgs {
    /// Runs the match: exit status 0 when it ran to its end or SPRT decided, 130 after
    /// Ctrl-C; the error is a usage or start-up error (exit status 2).
    pub fn run(&self, game: GameKind) -> Result<ExitCode, String> {
        let config = super::config::parse_args(&self.args, game)?;
        let interrupt = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&interrupt);
        if let Err(e) = ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed)) {
            eprintln!("warning: Ctrl-C handler not installed: {e}");
        }
        let results = super::run(&config, interrupt)?;
        print!("{}", super::summary(&results));
        if results.end == super::MatchEnd::Interrupted {
            Ok(ExitCode::from(130))
        } else {
            Ok(ExitCode::SUCCESS)
        }
    }
}
