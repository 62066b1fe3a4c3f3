//! What a protocol front end is: the part of the protocol layer that reads input lines
//! into commands and writes replies and search reports as lines, on top of the shared
//! reader and writer threads, [`Controller`] (the game session and the engine's settings)
//! and the search's events.
//!
//! Two front ends exist: the UCI family ([`super::uci`]: UCI, UGI and UAI, which differ only
//! in the words of [`super::dialect`]) and the Gomocup protocol ([`super::gomocup`]).
//! [`Protocol`] chooses one at start-up, from the command line or the first input line.

use super::controller::Controller;
use crate::search::SearchInfo;

/// A protocol front end: executes one input line at a time against the controller.
pub trait FrontEnd {
    /// Handles one input line (with its line end); `false` means quit.
    fn handle_line(&mut self, controller: &mut Controller, line: &str) -> bool;
}

/// Turns one search's events into the front end's lines (moves already in the game's
/// notation). One reporter serves one search and goes with it to the search's thread.
pub trait Reporter: Send + 'static {
    /// The line for a finished iteration (UCI: `info depth ...`), if the front end prints
    /// one.
    fn iteration(&mut self, info: &SearchInfo<String>) -> Option<String>;
    /// The lines that end the search, given the best move and the move to ponder on
    /// (either may be missing).
    fn finished(&mut self, line: &[String]) -> Vec<String>;
}

/// Which front end speaks on stdin/stdout.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Protocol {
    /// Chosen by the first input line: a Gomocup command (`START`, `RECTSTART`, `INFO`,
    /// `ABOUT`, any case) selects Gomocup, anything else the UCI family.
    #[default]
    Auto,
    /// UCI, UGI or UAI, chosen by the handshake.
    Uci,
    /// The Gomocup (piskvork) protocol of gomoku managers.
    Gomocup,
}

impl Protocol {
    /// The protocol an automatic start speaks after `first_line`, the first line that is
    /// not blank.
    pub fn detect(first_line: &str) -> Protocol {
        let word = first_line
            .trim_start_matches('\u{feff}')
            .split_whitespace()
            .next()
            .unwrap_or_default();
        let gomocup = ["START", "RECTSTART", "INFO", "ABOUT"]
            .iter()
            .any(|command| command.eq_ignore_ascii_case(word));
        if gomocup {
            Protocol::Gomocup
        } else {
            Protocol::Uci
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_gomocup_command_selects_gomocup() {
        for line in [
            "START 15\n",
            "start 20",
            "RECTSTART 20,15",
            "INFO rule 0",
            "about",
        ] {
            assert_eq!(Protocol::detect(line), Protocol::Gomocup, "{line}");
        }
        for line in ["uci", "ugi", "uai", "isready", "BEGIN", "go", "\u{feff}uci"] {
            assert_eq!(Protocol::detect(line), Protocol::Uci, "{line}");
        }
    }
}
