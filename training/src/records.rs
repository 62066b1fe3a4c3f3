//! Game records: cutoff's compact self-play format for every game but chess (whose games
//! are stored in viriformat). A record is one game: the position its self-play started
//! from, each move with the search's score, and the result, so that a position costs a few
//! bytes instead of a board; the positions are found again by replaying the moves
//! ([`replay`]).
//!
//! A file is a sequence of blocks of whole games ([`crate::blocks`], tag `CGR1`), each game,
//! uncompressed:
//!
//! | bytes | what |
//! |---|---|
//! | 1 + n | the game's registry name: its length (`u8`) and its bytes |
//! | 2 + n | the start position in the game's FEN: its length (`u16`) and its bytes |
//! | 2 | the number of moves `n` (`u16`) |
//! | 2n | each move's code (`SearchHooks::encode_move`, `u16`): the `n` low bytes, then the `n` high bytes |
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
//! A damaged block costs only its own games ([`read_games`]).

use crate::blocks::{self, FileGames};
use cutoff::search::{Game, MoveList};

/// One move of a game record: the move's code and the score the search gave the position
/// before it, from the side to move's view.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RecordedMove {
    /// `SearchHooks::encode_move` of the move played.
    pub code: u16,
    /// The search's score of the position before the move (side to move's view).
    pub score: i16,
}

/// One game of self-play.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// The game's registry name (`ataxx`, `gomoku`).
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

/// Reads every block of `bytes` (the file `name`), expecting games of `game` (`None`: any).
/// A damaged block, or one of another game or format, is reported and skipped
/// ([`blocks::read_blocks`]).
pub fn read_games(bytes: &[u8], name: &str, game: Option<&str>) -> FileGames<GameRecord> {
    blocks::read_blocks(bytes, name, blocks::GAME_RECORDS, &mut |raw| {
        let (record, used) = GameRecord::decode(raw)?;
        match game {
            Some(expected) if record.game != expected => {
                Err(format!("a {} game, not {expected}", record.game))
            }
            _ => Ok((record, used)),
        }
    })
}

/// Replays `record` in `G` (of `variant`): `visit` sees each position before its move, with
/// the move's ply (from the record's start) and the search's score. An error if the start
/// position does not parse or a move is not legal where it was played.
pub fn replay<G: Game>(
    variant: &G::Variant,
    record: &GameRecord,
    visit: &mut dyn FnMut(&G, usize, i16),
) -> Result<(), String> {
    let mut game = G::from_fen(variant, &record.start)
        .map_err(|e| format!("start position '{}': {e}", record.start))?;
    let mut moves = MoveList::new();
    for (ply, recorded) in record.moves.iter().enumerate() {
        moves.clear();
        game.generate_moves(&mut moves);
        let mv = moves
            .iter()
            .copied()
            .find(|&mv| G::encode_move(mv) == recorded.code)
            .ok_or_else(|| format!("move {} (code {}) is not legal", ply + 1, recorded.code))?;
        visit(&game, ply, recorded.score);
        game.make_move(mv);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use cutoff::games::ataxx::{Ataxx, AtaxxVariant};
    use cutoff::search::{Rules, SearchHooks};

    /// A game of Ataxx of `plies` first-generated moves, as a record.
    fn ataxx_game(plies: usize, seed: i16) -> GameRecord {
        let variant = AtaxxVariant::default();
        let mut game = Ataxx::start(&variant);
        let start = game.to_fen();
        let mut moves = Vec::new();
        let mut list = MoveList::new();
        for ply in 0..plies {
            list.clear();
            game.generate_moves(&mut list);
            if list.is_empty() {
                break;
            }
            let mv = list[(ply * 7 + seed as usize) % list.len()];
            moves.push(RecordedMove {
                code: Ataxx::encode_move(mv),
                score: seed.wrapping_mul(31).wrapping_add(ply as i16),
            });
            game.make_move(mv);
        }
        GameRecord {
            game: "ataxx".into(),
            start,
            moves,
            result: (seed % 3) as u8,
        }
    }

    fn file_of(games: &[GameRecord], per_block: usize) -> Vec<u8> {
        let mut out = Vec::new();
        for chunk in games.chunks(per_block) {
            let mut raw = Vec::new();
            for game in chunk {
                game.encode(&mut raw).unwrap();
            }
            out.extend(encode_block(&raw, chunk.len()).unwrap());
        }
        out
    }

    #[test]
    fn zigzag_round_trips_every_value() {
        for value in i16::MIN..=i16::MAX {
            assert_eq!(unzigzag(zigzag(value)), value);
        }
        assert_eq!([zigzag(0), zigzag(-1), zigzag(1), zigzag(-2)], [0, 1, 2, 3]);
    }

    #[test]
    fn extreme_scores_round_trip() {
        let mut game = ataxx_game(6, 1);
        let scores = [i16::MIN, i16::MAX, -1, i16::MAX, i16::MIN, 0];
        for (mv, score) in game.moves.iter_mut().zip(scores) {
            mv.score = score;
        }
        let mut bytes = Vec::new();
        game.encode(&mut bytes).unwrap();
        assert_eq!(GameRecord::decode(&bytes), Ok((game, bytes.len())));
    }

    #[test]
    fn games_round_trip_and_replay() {
        let games: Vec<GameRecord> = (0..5).map(|i| ataxx_game(20 + i, i as i16)).collect();
        let file = file_of(&games, 2);
        let read = read_games(&file, "f", Some("ataxx"));
        assert!(read.errors.is_empty(), "{:?}", read.errors);
        assert_eq!(read.games, games);
        let mut seen = Vec::new();
        replay::<Ataxx>(&AtaxxVariant::default(), &games[1], &mut |g, ply, score| {
            seen.push((g.ply(), ply, score))
        })
        .unwrap();
        assert_eq!(seen.len(), 21);
        assert_eq!(seen[3].2, games[1].moves[3].score);
    }

    #[test]
    fn damage_costs_only_its_block() {
        let games: Vec<GameRecord> = (0..6).map(|i| ataxx_game(30, i as i16)).collect();
        let file = file_of(&games, 2);
        // A flipped byte inside the second block's frame.
        let second = blocks::next_tag(&file, 1, blocks::GAME_RECORDS);
        let mut flipped = file.clone();
        flipped[second + blocks::HEADER_BYTES + 20] ^= 0x40;
        let read = read_games(&flipped, "data/x.cgr", Some("ataxx"));
        assert_eq!(read.games.len(), 4);
        assert_eq!(read.games[..2], games[..2]);
        assert_eq!(read.games[2..], games[4..]);
        assert_eq!(read.errors.len(), 1, "{:?}", read.errors);
        assert!(
            read.errors[0].starts_with(&format!("data/x.cgr: offset {second}:")),
            "{}",
            read.errors[0]
        );
        // A file cut short keeps its whole blocks.
        let cut = read_games(&file[..file.len() - 5], "f", None);
        assert_eq!(cut.games[..], games[..4]);
        assert_eq!(cut.errors.len(), 1);
        assert!(cut.errors[0].contains("cut short"), "{:?}", cut.errors);
    }

    #[test]
    fn another_game_and_junk_are_refused() {
        let mut gomoku = ataxx_game(4, 1);
        gomoku.game = "gomoku".into();
        let file = file_of(&[gomoku], 1);
        let read = read_games(&file, "f", Some("ataxx"));
        assert!(read.games.is_empty());
        assert!(
            read.errors[0].contains("a gomoku game, not ataxx"),
            "{:?}",
            read.errors
        );
        let junk = read_games(&[0x55; 100], "junk", Some("ataxx"));
        assert!(junk.games.is_empty());
        assert_eq!(junk.errors.len(), 1);
        assert!(!blocks::is_store_file(&[0x55; 100]));
    }

    #[test]
    fn an_illegal_move_is_named() {
        let mut game = ataxx_game(6, 2);
        game.moves[3].code = 0xfff0;
        let error = replay::<Ataxx>(&AtaxxVariant::default(), &game, &mut |_, _, _| {});
        assert_eq!(error, Err("move 4 (code 65520) is not legal".to_string()));
    }
}
