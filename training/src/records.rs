//! Game records: cutoff's compact self-play format for every game but chess (whose games
//! are stored in viriformat). A record is one game: the position its self-play started
//! from, each move with the search's score, and the result, so that a position costs a few
//! bytes instead of a board; the positions are found again by replaying the moves
//! ([`replay`]).
//!
//! A file is a sequence of blocks, each whole games:
//!
//! | bytes | what |
//! |---|---|
//! | 4 | `CGR1` |
//! | 4 | the length of the compressed games (`u32`, little-endian) |
//! | 4 | the number of games in the block (`u32`) |
//! | n | the games, one zstd frame with its content checksum |
//!
//! and each game, uncompressed:
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
//! Blocks are independent: a file that was cut short or damaged loses the blocks that are,
//! and [`read_games`] finds the next block by its tag and goes on, reporting each damaged
//! block with the file's name and its offset.

use std::io::Write;

use cutoff::search::{Game, MoveList};

/// The tag that opens a block.
pub const BLOCK_TAG: [u8; 4] = *b"CGR1";
/// The bytes of a block's header (tag, length, games).
const HEADER_BYTES: usize = 12;
/// zstd's level for the store (the slowest levels gain little on these records).
pub const ZSTD_LEVEL: i32 = 19;
/// Games a writer gathers into a block.
pub const GAMES_PER_BLOCK: usize = 256;

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

/// A cursor over a game's bytes.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.at + n;
        let slice = self.bytes.get(self.at..end).ok_or("a game cut short")?;
        self.at = end;
        Ok(slice)
    }

    fn u16(&mut self) -> Result<u16, String> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    /// `n` values of 16 bits stored as two planes (the low bytes, then the high bytes).
    fn planes(&mut self, n: usize) -> Result<impl Iterator<Item = u16> + 'a, String> {
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
fn push_planes(out: &mut Vec<u8>, values: impl Iterator<Item = u16> + Clone) {
    out.extend(values.clone().map(|v| v as u8));
    out.extend(values.map(|v| (v >> 8) as u8));
}

/// 0, -1, 1, -2, 2... as 0, 1, 2, 3, 4...
fn zigzag(value: i16) -> u16 {
    ((value << 1) ^ (value >> 15)) as u16
}

/// The inverse of [`zigzag`].
fn unzigzag(code: u16) -> i16 {
    ((code >> 1) as i16) ^ -((code & 1) as i16)
}

/// Compresses `games` (already encoded, `count` of them) into one block.
pub fn encode_block(games: &[u8], count: usize) -> Result<Vec<u8>, String> {
    let mut compressor =
        zstd::bulk::Compressor::new(ZSTD_LEVEL).map_err(|e| format!("cannot start zstd: {e}"))?;
    compressor
        .include_checksum(true)
        .map_err(|e| format!("cannot set zstd's checksum: {e}"))?;
    let frame = compressor
        .compress(games)
        .map_err(|e| format!("cannot compress games: {e}"))?;
    let length = u32::try_from(frame.len()).map_err(|_| "a block over 4 GiB".to_string())?;
    let count = u32::try_from(count).map_err(|_| "too many games in a block".to_string())?;
    let mut block = Vec::with_capacity(HEADER_BYTES + frame.len());
    block.extend_from_slice(&BLOCK_TAG);
    block.extend_from_slice(&length.to_le_bytes());
    block.extend_from_slice(&count.to_le_bytes());
    block.extend_from_slice(&frame);
    Ok(block)
}

/// Writes games as blocks of [`GAMES_PER_BLOCK`]: [`BlockWriter::push`] each game's bytes,
/// then [`BlockWriter::finish`] for the last block.
pub struct BlockWriter<'a> {
    out: &'a mut dyn Write,
    games: Vec<u8>,
    count: usize,
}

impl<'a> BlockWriter<'a> {
    /// A writer appending blocks to `out`.
    pub fn new(out: &'a mut dyn Write) -> Self {
        BlockWriter {
            out,
            games: Vec::new(),
            count: 0,
        }
    }

    /// Adds one encoded game, writing a block when it holds [`GAMES_PER_BLOCK`].
    pub fn push(&mut self, game: &[u8]) -> Result<(), String> {
        self.games.extend_from_slice(game);
        self.count += 1;
        if self.count >= GAMES_PER_BLOCK {
            self.flush_block()?;
        }
        Ok(())
    }

    /// Writes the games gathered so far as a block (none: nothing).
    pub fn flush_block(&mut self) -> Result<(), String> {
        if self.count == 0 {
            return Ok(());
        }
        let block = encode_block(&self.games, self.count)?;
        self.out
            .write_all(&block)
            .map_err(|e| format!("cannot write games: {e}"))?;
        self.games.clear();
        self.count = 0;
        Ok(())
    }

    /// Writes the last block and flushes the output.
    pub fn finish(mut self) -> Result<(), String> {
        self.flush_block()?;
        self.out
            .flush()
            .map_err(|e| format!("cannot write games: {e}"))
    }
}

/// Whether `bytes` start as a file of game records.
pub fn is_game_records(bytes: &[u8]) -> bool {
    bytes.starts_with(&BLOCK_TAG)
}

/// What a file of game records held: the games of its sound blocks, in order, and an
/// error for each damaged part (naming the file and the offset).
#[derive(Clone, Debug, Default)]
pub struct FileGames {
    /// The games of the blocks that decoded.
    pub games: Vec<GameRecord>,
    /// One line per damaged block or unreadable stretch.
    pub errors: Vec<String>,
}

/// Reads every block of `bytes` (the file `name`), expecting games of `game` (`None`: any).
/// A damaged block is reported and skipped: the reader looks for the next block's tag.
pub fn read_games(bytes: &[u8], name: &str, game: Option<&str>) -> FileGames {
    let mut file = FileGames::default();
    let mut at = 0;
    while at < bytes.len() {
        match read_block(&bytes[at..], game) {
            Ok((games, used)) => {
                file.games.extend(games);
                at += used;
            }
            Err(error) => {
                file.errors.push(format!("{name}: offset {at}: {error}"));
                at = next_tag(bytes, at + 1);
            }
        }
    }
    file
}

/// The offset of the next block tag at or after `from` (the end if there is none).
fn next_tag(bytes: &[u8], from: usize) -> usize {
    (from..bytes.len())
        .find(|&i| bytes[i..].starts_with(&BLOCK_TAG))
        .unwrap_or(bytes.len())
}

/// Decodes the block at the front of `bytes`: its games and the bytes it took.
fn read_block(bytes: &[u8], game: Option<&str>) -> Result<(Vec<GameRecord>, usize), String> {
    if bytes.len() < HEADER_BYTES || !bytes.starts_with(&BLOCK_TAG) {
        return Err("no game-record block here (cut short, or not a game-record file)".into());
    }
    let word = |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
    let length = word(4) as usize;
    let count = word(8) as usize;
    let frame = bytes
        .get(HEADER_BYTES..HEADER_BYTES + length)
        .ok_or_else(|| format!("a block of {length} bytes cut short"))?;
    let raw = zstd::stream::decode_all(frame).map_err(|e| format!("damaged block: {e}"))?;
    let mut games = Vec::with_capacity(count);
    let mut at = 0;
    while at < raw.len() {
        let (record, used) =
            GameRecord::decode(&raw[at..]).map_err(|e| format!("game {}: {e}", games.len()))?;
        if let Some(expected) = game {
            if record.game != expected {
                return Err(format!("a {} game, not {expected}", record.game));
            }
        }
        games.push(record);
        at += used;
    }
    if games.len() != count {
        return Err(format!(
            "{} games where the header says {count}",
            games.len()
        ));
    }
    Ok((games, HEADER_BYTES + length))
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
        let second = next_tag(&file, 1);
        let mut flipped = file.clone();
        flipped[second + HEADER_BYTES + 20] ^= 0x40;
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
        assert!(!is_game_records(&[0x55; 100]));
    }

    #[test]
    fn an_illegal_move_is_named() {
        let mut game = ataxx_game(6, 2);
        game.moves[3].code = 0xfff0;
        let error = replay::<Ataxx>(&AtaxxVariant::default(), &game, &mut |_, _, _| {});
        assert_eq!(error, Err("move 4 (code 65520) is not legal".to_string()));
    }
}
