//! PGN text read as games: each game's tag pairs and its movetext, not yet replayed (the
//! moves are a game's own business). Read by the chess import of the training crate and
//! by the match crate's pooling of `-pgnout` files.

use std::io::BufRead;

/// One PGN game as read: its tags and its movetext, not yet replayed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PgnGame {
    /// The tag pairs (`[Name "value"]`), in order.
    pub tags: Vec<(String, String)>,
    /// The movetext, its lines joined by line ends.
    pub movetext: String,
}

impl PgnGame {
    /// The value of tag `name`, if the game has it.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(tag, _)| tag == name)
            .map(|(_, value)| value.as_str())
    }
}

/// Reads the games of a PGN text, one at a time: a tag line after movetext starts the next
/// game. Lines that are not UTF-8 are read lossily (a game with them fails its replay).
pub struct PgnGames<R: BufRead> {
    input: R,
    pending: Option<String>,
    done: bool,
}

impl<R: BufRead> PgnGames<R> {
    /// The games of `input`.
    pub fn new(input: R) -> Self {
        PgnGames {
            input,
            pending: None,
            done: false,
        }
    }

    fn next_line(&mut self) -> Result<Option<String>, String> {
        if let Some(line) = self.pending.take() {
            return Ok(Some(line));
        }
        let mut bytes = Vec::new();
        match self.input.read_until(b'\n', &mut bytes) {
            Ok(0) => Ok(None),
            Ok(_) => Ok(Some(String::from_utf8_lossy(&bytes).trim().to_string())),
            Err(e) => Err(format!("cannot read: {e}")),
        }
    }
}

impl<R: BufRead> Iterator for PgnGames<R> {
    type Item = Result<PgnGame, String>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let mut game = PgnGame::default();
        loop {
            let line = match self.next_line() {
                Ok(Some(line)) => line,
                Ok(None) => {
                    self.done = true;
                    break;
                }
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            };
            if line.starts_with('[') {
                if !game.movetext.is_empty() {
                    self.pending = Some(line);
                    break;
                }
                if let Some(tag) = parse_tag(&line) {
                    game.tags.push(tag);
                }
            } else if !line.is_empty() && !line.starts_with('%') {
                if !game.movetext.is_empty() {
                    game.movetext.push('\n');
                }
                game.movetext.push_str(&line);
            }
        }
        (!game.tags.is_empty() || !game.movetext.is_empty()).then_some(Ok(game))
    }
}

/// `[Name "value"]` (the value's `\"` and `\\` unescaped).
fn parse_tag(line: &str) -> Option<(String, String)> {
    let inner = line.strip_prefix('[')?.trim_end().strip_suffix(']')?;
    let (name, rest) = inner.split_once(char::is_whitespace)?;
    let value = rest.trim().strip_prefix('"')?.strip_suffix('"')?;
    let value = value.replace("\\\"", "\"").replace("\\\\", "\\");
    Some((name.to_string(), value))
}
