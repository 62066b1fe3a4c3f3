//! The store's block layer, shared by every game's stored games: a file is a sequence of
//! blocks, each whole games compressed as one zstd frame, whatever the games' own format
//! (cutoff's game records, [`crate::records`], or chess's viriformat games,
//! [`crate::chess::store`]):
//!
//! | bytes | what |
//! |---|---|
//! | 4 | the tag of the games' format ([`BlockKind`]: `CGR1`, `VIR1`) |
//! | 4 | the length of the compressed games (`u32`, little-endian) |
//! | 4 | the number of games in the block (`u32`) |
//! | n | the games, one zstd frame with its content checksum |
//!
//! Blocks are independent: a file that was cut short or damaged loses the blocks that are,
//! and [`read_blocks`] finds the next block by its tag and goes on, reporting each damaged
//! block with the file's name and its offset. A block of another format than the one
//! expected is refused by its tag, named, so that one game's file is not read as another's.

use std::io::Write;

/// A format of stored games: the tag that opens its blocks, and what it is called.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BlockKind {
    /// The tag that opens a block.
    pub tag: [u8; 4],
    /// What the blocks hold, for error messages.
    pub name: &'static str,
}

/// cutoff's game records (every game but chess).
pub const GAME_RECORDS: BlockKind = BlockKind {
    tag: *b"CGR1",
    name: "cutoff game records",
};

/// Chess games in viriformat.
pub const VIRIFORMAT: BlockKind = BlockKind {
    tag: *b"VIR1",
    name: "viriformat chess games",
};

/// Every kind of block the store holds.
pub const KINDS: [BlockKind; 2] = [GAME_RECORDS, VIRIFORMAT];

/// The bytes of a block's header (tag, length, games).
pub const HEADER_BYTES: usize = 12;
/// zstd's level for the store (the slowest levels gain little on these records).
pub const ZSTD_LEVEL: i32 = 19;
/// Games a writer gathers into a block.
pub const GAMES_PER_BLOCK: usize = 256;

/// Compresses `games` (already encoded, `count` of them) into one block of `kind`.
pub fn encode_block(kind: BlockKind, games: &[u8], count: usize) -> Result<Vec<u8>, String> {
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
    block.extend_from_slice(&kind.tag);
    block.extend_from_slice(&length.to_le_bytes());
    block.extend_from_slice(&count.to_le_bytes());
    block.extend_from_slice(&frame);
    Ok(block)
}

/// Writes games as blocks of [`GAMES_PER_BLOCK`]: [`BlockWriter::push`] each game's bytes,
/// then [`BlockWriter::finish`] for the last block.
pub struct BlockWriter<'a> {
    out: &'a mut dyn Write,
    kind: BlockKind,
    games: Vec<u8>,
    count: usize,
}

impl<'a> BlockWriter<'a> {
    /// A writer appending blocks of `kind` to `out`.
    pub fn new(out: &'a mut dyn Write, kind: BlockKind) -> Self {
        BlockWriter {
            out,
            kind,
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
        let block = encode_block(self.kind, &self.games, self.count)?;
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

/// Whether `bytes` start as a store file (a block of any kind).
pub fn is_store_file(bytes: &[u8]) -> bool {
    KINDS.iter().any(|kind| bytes.starts_with(&kind.tag))
}

/// What a store file held: the games of its sound blocks, in order, and an error for each
/// damaged part (naming the file and the offset).
#[derive(Clone, Debug)]
pub struct FileGames<T> {
    /// The games of the blocks that decoded.
    pub games: Vec<T>,
    /// One line per damaged block or unreadable stretch.
    pub errors: Vec<String>,
}

impl<T> Default for FileGames<T> {
    fn default() -> Self {
        FileGames {
            games: Vec::new(),
            errors: Vec::new(),
        }
    }
}

/// Decodes one game from the front of a block's bytes: the game and the bytes it took.
pub type DecodeGame<'a, T> = &'a mut dyn FnMut(&[u8]) -> Result<(T, usize), String>;

/// Reads every block of `bytes` (the file `name`), expecting blocks of `kind` whose games
/// `decode` reads one after the other. A damaged block is reported and skipped: the reader
/// looks for the next block's tag.
pub fn read_blocks<T>(
    bytes: &[u8],
    name: &str,
    kind: BlockKind,
    decode: DecodeGame<'_, T>,
) -> FileGames<T> {
    let mut file = FileGames::default();
    let mut at = 0;
    while at < bytes.len() {
        match read_block(&bytes[at..], kind, &mut *decode) {
            Ok((games, used)) => {
                file.games.extend(games);
                at += used;
            }
            Err(error) => {
                file.errors.push(format!("{name}: offset {at}: {error}"));
                at = next_tag(bytes, at + 1, kind);
            }
        }
    }
    file
}

/// The offset of the next tag of `kind` at or after `from` (the end if there is none).
pub fn next_tag(bytes: &[u8], from: usize, kind: BlockKind) -> usize {
    (from..bytes.len())
        .find(|&i| bytes[i..].starts_with(&kind.tag))
        .unwrap_or(bytes.len())
}

/// Why the bytes at a block's start are no block of `kind`.
fn not_a_block(bytes: &[u8], kind: BlockKind) -> String {
    match KINDS.iter().find(|other| bytes.starts_with(&other.tag)) {
        Some(other) if *other != kind => {
            format!("a block of {}, not of {}", other.name, kind.name)
        }
        _ => format!(
            "no block of {} here (cut short, or another file)",
            kind.name
        ),
    }
}

/// Decodes the block at the front of `bytes`: its games and the bytes it took.
fn read_block<T>(
    bytes: &[u8],
    kind: BlockKind,
    decode: DecodeGame<'_, T>,
) -> Result<(Vec<T>, usize), String> {
    if bytes.len() < HEADER_BYTES || !bytes.starts_with(&kind.tag) {
        return Err(not_a_block(bytes, kind));
    }
    let word = |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
    let length = word(4) as usize;
    let count = word(8) as usize;
    let frame = bytes
        .get(HEADER_BYTES..HEADER_BYTES + length)
        .ok_or_else(|| format!("a block of {length} bytes cut short"))?;
    let raw = zstd::stream::decode_all(frame).map_err(|e| format!("damaged block: {e}"))?;
    let mut games = Vec::with_capacity(count.min(GAMES_PER_BLOCK));
    let mut at = 0;
    while at < raw.len() {
        let (game, used) = decode(&raw[at..]).map_err(|e| format!("game {}: {e}", games.len()))?;
        games.push(game);
        at += used.max(1);
    }
    if games.len() != count {
        return Err(format!(
            "{} games where the header says {count}",
            games.len()
        ));
    }
    Ok((games, HEADER_BYTES + length))
}
