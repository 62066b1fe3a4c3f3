//! Game records: one game of self-play as every game's datagen plays it and the store's
//! reader replays it ([`GameRecord`]): the position its self-play started from, each move
//! with the search's score, and the result, so that a position costs a few bytes instead
//! of a board; the positions are found again by replaying the moves
//! ([`crate::store::replay`]). How a game keeps its records in the store is its
//! [`StoreFormat`]: cutoff's own format below for every game but chess, whose games are
//! stored in viriformat ([`crate::chess::store`]).
//!
//! A file is a sequence of blocks of whole games ([`crate::blocks`], tag `CGR1`), each game,
//! uncompressed:
//!
//! | bytes | what |
//! |---|---|
//! | 1 + n | the game's registry name: its length (`u8`) and its bytes |
//! | 2 + n | the start position in the game's FEN: its length (`u16`) and its bytes |
//! | 2 | the number of moves `n` (`u16`) |
//! | 2n | each move's code (`TrainingSupport::record_code`, `u16`): the `n` low bytes, then the `n` high bytes |
//! | 2n | each move's score: the `n` low bytes, then the `n` high bytes of a `u16` (below) |
//! | 1 | the result: 0 the second player won, 1 a draw, 2 the first player won |
//!
//! A score is the search's score of the position before the move, from the side to move's
//! view (`i16`). It is stored as its difference from the score the game's last search gave
//! (negated: it was the other side's; 0 before the first move), zigzag-coded (0, -1, 1,
//! -2... as 0, 1, 2, 3...), because consecutive scores are close and small numbers in
//! planes of like bytes compress best: 2.7 bytes a move with zstd at level 19 in Ataxx,
//! against 3.1 for each move's code and score side by side.
//!
//! A damaged block costs only its own games ([`crate::blocks::read_blocks`]).

use crate::blocks::{self, BlockKind};

/// One move of a game record: the move's code and the score the search gave the position
/// before it, from the side to move's view.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RecordedMove {
    /// The code of the move played (`TrainingSupport::record_code`).
    pub code: u16,
    /// The search's score of the position before the move (side to move's view).
    pub score: i16,
}

/// One game of self-play, whatever the format it is stored in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// The game's registry name (`chess`, `ataxx`, `gomoku`).
    pub game: String,
    /// The position the recorded moves start from, in the game's FEN.
    pub start: String,
    /// The moves played, with the search's scores.
    pub moves: Vec<RecordedMove>,
    /// The first player's points doubled: 0 lost, 1 drawn, 2 won.
    pub result: u8,
}

impl GameRecord {
    /// The first player's score: 1, 1/2 or 0.
    pub fn first_player_score(&self) -> f64 {
        f64::from(self.result) / 2.0
    }

    /// The result byte of a first player's score (1, 1/2 or 0).
    pub fn result_of(first_player_score: f64) -> u8 {
        (first_player_score * 2.0).round().clamp(0.0, 2.0) as u8
    }

    /// Appends the game's uncompressed bytes to `out`; an error if a field does not fit
    /// its length (a name over 255 bytes, a FEN or a game over 65,535).
    pub fn encode(&self, out: &mut Vec<u8>) -> Result<(), String> {
        let name = u8::try_from(self.game.len())
            .map_err(|_| format!("game name of {} bytes", self.game.len()))?;
        let fen = u16::try_from(self.start.len())
            .map_err(|_| format!("start position of {} bytes", self.start.len()))?;
        let moves = u16::try_from(self.moves.len())
            .map_err(|_| format!("game of {} moves", self.moves.len()))?;
        out.push(name);
        out.extend_from_slice(self.game.as_bytes());
        out.extend_from_slice(&fen.to_le_bytes());
        out.extend_from_slice(self.start.as_bytes());
        out.extend_from_slice(&moves.to_le_bytes());
        let codes = self.moves.iter().map(|mv| mv.code);
        push_planes(out, codes);
        // The score before the first move is 0; each later one is told from the last.
        let before = std::iter::once(0).chain(self.moves.iter().map(|mv| mv.score));
        let deltas = self
            .moves
            .iter()
            .zip(before)
            .map(|(mv, previous)| zigzag(mv.score.wrapping_add(previous)));
        push_planes(out, deltas);
        out.push(self.result.min(2));
        Ok(())
    }

    /// Reads one game from the front of `bytes`, returning it and the bytes it took.
    pub fn decode(bytes: &[u8]) -> Result<(GameRecord, usize), String> {
        let mut reader = Reader { bytes, at: 0 };
        let name_len = usize::from(reader.take(1)?[0]);
        let game = reader.text(name_len)?;
        let fen_len = usize::from(reader.u16()?);
        let start = reader.text(fen_len)?;
        let count = usize::from(reader.u16()?);
        let codes = reader.planes(count)?;
        let deltas = reader.planes(count)?;
        let mut previous = 0i16;
        let moves = codes
            .zip(deltas)
            .map(|(code, delta)| {
                let score = unzigzag(delta).wrapping_sub(previous);
                previous = score;
                RecordedMove { code, score }
            })
            .collect();
        let result = reader.take(1)?[0];
        if result > 2 {
            return Err(format!("result byte {result}"));
        }
        let record = GameRecord {
            game,
            start,
            moves,
            result,
        };
        Ok((record, reader.at))
    }
}

/// A cursor over a game's bytes (chess's stored games read theirs with it too).
pub(crate) struct Reader<'a> {
    /// The bytes.
    pub(crate) bytes: &'a [u8],
    /// The next byte to read.
    pub(crate) at: usize,
}

impl<'a> Reader<'a> {
    /// The next `n` bytes.
    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.at + n;
        let slice = self.bytes.get(self.at..end).ok_or("a game cut short")?;
        self.at = end;
        Ok(slice)
    }

    /// The next `u16` (little-endian).
    pub(crate) fn u16(&mut self) -> Result<u16, String> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    /// `n` values of 16 bits stored as two planes (the low bytes, then the high bytes).
    pub(crate) fn planes(&mut self, n: usize) -> Result<impl Iterator<Item = u16> + 'a, String> {
        let low = self.take(n)?;
        let high = self.take(n)?;
        Ok(low
            .iter()
            .zip(high)
            .map(|(&l, &h)| u16::from_le_bytes([l, h])))
    }

    fn text(&mut self, n: usize) -> Result<String, String> {
        String::from_utf8(self.take(n)?.to_vec()).map_err(|_| "a name that is no text".into())
    }
}

/// Appends 16-bit `values` as two planes: every low byte, then every high byte.
pub(crate) fn push_planes(out: &mut Vec<u8>, values: impl Iterator<Item = u16> + Clone) {
    out.extend(values.clone().map(|v| v as u8));
    out.extend(values.map(|v| (v >> 8) as u8));
}

/// 0, -1, 1, -2, 2... as 0, 1, 2, 3, 4...
pub(crate) fn zigzag(value: i16) -> u16 {
    ((value << 1) ^ (value >> 15)) as u16
}

/// The inverse of [`zigzag`].
pub(crate) fn unzigzag(code: u16) -> i16 {
    ((code >> 1) as i16) ^ -((code & 1) as i16)
}

/// Compresses `games` (encoded game records, `count` of them) into one block.
pub fn encode_block(games: &[u8], count: usize) -> Result<Vec<u8>, String> {
    blocks::encode_block(blocks::GAME_RECORDS, games, count)
}

/// How a game keeps its self-play in the store: the kind of the blocks, and each game's
/// bytes in them (a game's `TrainingSupport::STORE_FORMAT`).
#[derive(Copy, Clone, Debug)]
pub struct StoreFormat {
    /// The kind of the blocks that hold the games.
    pub blocks: BlockKind,
    /// Appends a game's uncompressed bytes.
    pub encode: fn(&GameRecord, &mut Vec<u8>) -> Result<(), String>,
    /// Reads one game from the front of a block's bytes: the game and the bytes it took.
    pub decode: DecodeRecord,
}

/// Reads one game record from the front of a block's bytes: the game and the bytes it took.
pub type DecodeRecord = fn(&[u8]) -> Result<(GameRecord, usize), String>;

impl StoreFormat {
    /// cutoff's game records (this module's format).
    pub const GAME_RECORDS: StoreFormat = StoreFormat {
        blocks: blocks::GAME_RECORDS,
        encode: GameRecord::encode,
        decode: GameRecord::decode,
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zigzag_round_trips_every_value() {
        for value in i16::MIN..=i16::MAX {
            assert_eq!(unzigzag(zigzag(value)), value);
        }
        assert_eq!([zigzag(0), zigzag(-1), zigzag(1), zigzag(-2)], [0, 1, 2, 3]);
    }

    #[test]
    fn extreme_scores_round_trip() {
        let scores = [i16::MIN, i16::MAX, -1, i16::MAX, i16::MIN, 0];
        let game = GameRecord {
            game: "ataxx".into(),
            start: "x5o/7/7/7/7/7/o5x x 0 1".into(),
            moves: (0..6)
                .zip(scores)
                .map(|(code, score)| RecordedMove {
                    code: 0x1234 * code,
                    score,
                })
                .collect(),
            result: 1,
        };
        let mut bytes = Vec::new();
        game.encode(&mut bytes).unwrap();
        assert_eq!(GameRecord::decode(&bytes), Ok((game.clone(), bytes.len())));
        // The store's format of every game but chess is this one.
        let format = StoreFormat::GAME_RECORDS;
        let mut again = Vec::new();
        (format.encode)(&game, &mut again).unwrap();
        assert_eq!(again, bytes);
        assert_eq!((format.decode)(&bytes), Ok((game, bytes.len())));
    }
}
