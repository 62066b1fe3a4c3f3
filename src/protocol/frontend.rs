//! What a protocol front end is: the part of the protocol layer that reads input lines
//! into commands and writes replies and search reports as lines, on top of the shared
//! reader and writer threads, the [`Controller`] (the game session and the engine's
//! settings) and the session's [`Reporter`](super::session::Reporter) (a search's events
//! as lines). The protocol loop (`engine_loop`) chooses the front end and feeds it.

use std::borrow::Cow;

use super::controller::Controller;

/// A protocol front end: executes one input line at a time against the controller.
pub trait FrontEnd {
    /// Handles one input line (with its line end); `false` means quit.
    fn handle_line(&mut self, controller: &mut Controller, line: &str) -> bool;

    /// Answers input that was not read as a line (`reason` says why, e.g. a line over the
    /// reader's limit) with this protocol's error; the state is unchanged.
    fn refuse_input(&mut self, controller: &mut Controller, reason: &str);
}

/// Words (runs without a space) longer than this are shortened when an error repeats them.
const QUOTED_WORD_LIMIT: usize = 64;

/// `message` with every word longer than 64 bytes cut to about its first 48 bytes, then
/// `...` and its length: an error that quotes a huge token stays one short line.
pub fn shorten_long_words(message: &str) -> Cow<'_, str> {
    if message
        .split(' ')
        .all(|word| word.len() <= QUOTED_WORD_LIMIT)
    {
        return Cow::Borrowed(message);
    }
    let words: Vec<String> = message
        .split(' ')
        .map(|word| {
            if word.len() <= QUOTED_WORD_LIMIT {
                return word.to_string();
            }
            let mut end = 48;
            while !word.is_char_boundary(end) {
                end -= 1;
            }
            format!("{}...[{} bytes]", &word[..end], word.len())
        })
        .collect();
    Cow::Owned(words.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_words_are_shortened_and_short_messages_kept() {
        let short = "unknown command 'xyzzy'";
        assert!(matches!(shorten_long_words(short), Cow::Borrowed(_)));
        let huge = format!("unknown command '{}' here", "x".repeat(100_000));
        let shortened = shorten_long_words(&huge);
        assert_eq!(
            shortened,
            format!("unknown command '{}...[100002 bytes] here", "x".repeat(47))
        );
        // A cut never splits a character.
        let wide = "é".repeat(40);
        assert_eq!(
            shorten_long_words(&wide),
            format!("{}...[80 bytes]", "é".repeat(24))
        );
    }
}
