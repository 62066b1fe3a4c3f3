//! What a protocol front end is: the part of the protocol layer that reads input lines
//! into commands and writes replies and search reports as lines, on top of the shared
//! reader and writer threads, the [`Controller`] (the game session and the engine's
//! settings) and the session's [`Reporter`](super::session::Reporter) (a search's events
//! as lines). The protocol loop (`engine_loop`) chooses the front end and feeds it.

use super::controller::Controller;

/// A protocol front end: executes one input line at a time against the controller.
pub trait FrontEnd {
    /// Handles one input line (with its line end); `false` means quit.
    fn handle_line(&mut self, controller: &mut Controller, line: &str) -> bool;
}
