//! `cutoff --game chess data import FILE.pgn[.bz2]... --out FILE`: the games of PGN files
//! ([`super::pgn`]) as one store file of chess games (viriformat, [`super::store`]). A game
//! that cannot be replayed is skipped with its file, number and reason; the output is
//! written to a temporary file beside it and renamed when whole, so it is never
//! half-written, and nothing is written when no game imports.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;

use bzip2::read::MultiBzDecoder;

use super::pgn::{import_game, PgnGames};
use super::store::encode_game;
use crate::blocks::{self, BlockWriter};

/// What an import did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImportSummary {
    /// Games stored.
    pub games: usize,
    /// Positions stored (moves with a score).
    pub positions: usize,
    /// The games skipped: `FILE: game N: reason`.
    pub skipped: Vec<String>,
}

impl ImportSummary {
    /// The summary line (`scripts/generation.py add` reads it from the log).
    pub fn line(&self, out: &str) -> String {
        format!(
            "{} games imported, {} positions written to {out} ({} games skipped)",
            self.games,
            self.positions,
            self.skipped.len()
        )
    }
}

/// Imports the games of `files` into the store file `out` (replaced whole).
pub fn import_pgn_files(files: &[String], out: &str) -> Result<ImportSummary, String> {
    crate::check_output_path(out)?;
    let mut summary = ImportSummary::default();
    let mut bytes = Vec::new();
    let mut writer = BlockWriter::new(&mut bytes, blocks::VIRIFORMAT);
    for file in files {
        let input = open_pgn(file)?;
        import_games(input, file, &mut writer, &mut summary)?;
    }
    writer.finish()?;
    if summary.games == 0 {
        let shown: Vec<&str> = summary.skipped.iter().take(3).map(String::as_str).collect();
        return Err(format!(
            "no game to import ({} skipped: {}{}): {out} not written",
            summary.skipped.len(),
            shown.join("; "),
            if summary.skipped.len() > 3 {
                "; ..."
            } else {
                ""
            }
        ));
    }
    write_whole(out, &bytes)?;
    Ok(summary)
}

/// The text of a PGN file, decompressed when its name ends in `.bz2`.
fn open_pgn(file: &str) -> Result<Box<dyn BufRead>, String> {
    let opened = File::open(file).map_err(|e| format!("cannot read {file}: {e}"))?;
    let reader: Box<dyn Read> = if file.ends_with(".bz2") {
        Box::new(MultiBzDecoder::new(opened))
    } else {
        Box::new(opened)
    };
    Ok(Box::new(BufReader::new(reader)))
}

/// Imports every game of `input` (the file `name`) into `writer`. An error when the
/// file cannot be read to its end (a damaged `.bz2`).
pub fn import_games(
    input: impl BufRead,
    name: &str,
    writer: &mut BlockWriter,
    summary: &mut ImportSummary,
) -> Result<(), String> {
    for (index, game) in PgnGames::new(input).enumerate() {
        let game = game.map_err(|e| format!("{name}: game {}: {e}", index + 1))?;
        let imported = import_game(&game).and_then(|imported| {
            let mut encoded = Vec::new();
            encode_game(
                &imported.start,
                &imported.moves,
                imported.white_result,
                &mut encoded,
            )?;
            Ok((encoded, imported.moves.len()))
        });
        match imported {
            Ok((encoded, positions)) => {
                writer.push(&encoded)?;
                summary.games += 1;
                summary.positions += positions;
            }
            Err(reason) => summary
                .skipped
                .push(format!("{name}: game {}: {reason}", index + 1)),
        }
    }
    Ok(())
}

/// Writes `bytes` to `out` through a temporary file beside it, renamed when written.
fn write_whole(out: &str, bytes: &[u8]) -> Result<(), String> {
    let path = Path::new(out);
    let name = path
        .file_name()
        .ok_or_else(|| format!("{out}: not a file name"))?;
    let temporary = path.with_file_name(format!(
        ".{}.tmp-{}",
        name.to_string_lossy(),
        std::process::id()
    ));
    let written = File::create(&temporary)
        .and_then(|mut file| file.write_all(bytes).and_then(|()| file.sync_all()))
        .and_then(|()| std::fs::rename(&temporary, path));
    written.map_err(|e| {
        let _ = std::fs::remove_file(&temporary);
        format!("cannot write {out}: {e}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::GameRecord;
    use cutoff::games::chess::Chess;

    /// The game records of a store file's bytes.
    fn read_games(bytes: &[u8], name: &str) -> crate::blocks::FileGames<GameRecord> {
        crate::store::read_games::<Chess>(bytes, name)
    }
    use bzip2::{write::BzEncoder, Compression};

    const GAMES: &str = "[Event \"1\"]\n[Result \"1-0\"]\n\n\
        1. e4 {book} e5 {book} 2. Nf3 {+0.31/12 0.1s} Nc6 {-0.20/11 0.1s} 1-0\n\n\
        [Event \"2\"]\n[Result \"1/2-1/2\"]\n\n1. d4 {+0.1/1} d5 {-0.1/1} 2. Ke3 {+0.1/1} 1/2-1/2\n\n\
        [Event \"3\"]\n[Result \"0-1\"]\n\n1. c4 {+0.1/1} e5 {-0.1/1} 2. Nc3 {+0.1/1} 0-1\n";

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("cutoff-import-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn bz2(text: &[u8]) -> Vec<u8> {
        let mut encoder = BzEncoder::new(Vec::new(), Compression::best());
        encoder.write_all(text).unwrap();
        encoder.finish().unwrap()
    }

    #[test]
    fn plain_and_bz2_files_import_and_the_bad_game_is_named() {
        let dir = scratch("ok");
        let plain = dir.join("a.pgn");
        let packed = dir.join("b.pgn.bz2");
        std::fs::write(&plain, GAMES).unwrap();
        std::fs::write(&packed, bz2(GAMES.as_bytes())).unwrap();
        let out = dir.join("out.cgr");
        let files = [plain.display().to_string(), packed.display().to_string()];
        let summary = import_pgn_files(&files, &out.display().to_string()).unwrap();
        assert_eq!(summary.games, 4);
        assert_eq!(summary.positions, 2 * (2 + 3));
        assert_eq!(summary.skipped.len(), 2);
        assert!(
            summary.skipped[0].ends_with(
                "a.pgn: game 2: move 3 (Ke3): not a legal move in \
                rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR w KQkq d6 0 2"
            ),
            "{:?}",
            summary.skipped
        );
        let bytes = std::fs::read(&out).unwrap();
        let read = read_games(&bytes, "out");
        assert!(read.errors.is_empty(), "{:?}", read.errors);
        assert_eq!(read.games.len(), 4);
        // The side to move's view, as the engines' comments give them (stored as White's).
        assert_eq!(
            read.games[0]
                .moves
                .iter()
                .map(|m| m.score)
                .collect::<Vec<_>>(),
            [31, -20]
        );
        // No temporary file is left.
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 3);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Two games of cutoff against itself played by fastchess 1.8.2 (2,000 nodes a move,
    /// from genfens openings), as its `-pgnout` writes them.
    const FASTCHESS_PGN: &str = include_str!("../../tests/data/fastchess-cutoff.pgn");

    #[test]
    fn a_fastchess_pgn_imports() {
        let mut bytes = Vec::new();
        let mut writer = BlockWriter::new(&mut bytes, blocks::VIRIFORMAT);
        let mut summary = ImportSummary::default();
        import_games(FASTCHESS_PGN.as_bytes(), "f", &mut writer, &mut summary).unwrap();
        writer.finish().unwrap();
        assert!(summary.skipped.is_empty(), "{:?}", summary.skipped);
        // The first game stops before 19. Rxh7+ {+M5/8}: 28 moves; the second has 97.
        assert_eq!((summary.games, summary.positions), (2, 28 + 97));
        let read = read_games(&bytes, "f");
        assert!(read.errors.is_empty(), "{:?}", read.errors);
        // 5. e4 {-0.03/5} Bg7 {+0.14/5}, from the side to move's view.
        assert_eq!(
            read.games[0].moves[..2]
                .iter()
                .map(|m| m.score)
                .collect::<Vec<_>>(),
            [-3, 14]
        );
    }

    #[test]
    fn a_damaged_or_empty_input_writes_nothing() {
        let dir = scratch("bad");
        let out = dir.join("out.cgr");
        let out_name = out.display().to_string();
        std::fs::write(&out, b"earlier").unwrap();
        // A .bz2 cut short: an error, the earlier output untouched.
        let packed = bz2(GAMES.repeat(50).as_bytes());
        let cut = dir.join("cut.pgn.bz2");
        std::fs::write(&cut, &packed[..packed.len() / 2]).unwrap();
        let error = import_pgn_files(&[cut.display().to_string()], &out_name).unwrap_err();
        assert!(error.contains("cut.pgn.bz2: game "), "{error}");
        // Not bzip2 at all.
        let junk = dir.join("junk.pgn.bz2");
        std::fs::write(&junk, b"not bzip2").unwrap();
        assert!(import_pgn_files(&[junk.display().to_string()], &out_name).is_err());
        // No game that imports (another variant only): nothing written.
        let atomic = dir.join("atomic.pgn");
        std::fs::write(
            &atomic,
            "[Variant \"atomic\"]\n[Result \"1-0\"]\n\n1. e4 {+1/1} 1-0\n",
        )
        .unwrap();
        let error = import_pgn_files(&[atomic.display().to_string()], &out_name).unwrap_err();
        assert!(
            error.starts_with("no game to import (1 skipped: ")
                && error.contains("atomic.pgn: game 1: variant 'atomic'"),
            "{error}"
        );
        let missing = dir.join("missing.pgn").display().to_string();
        assert!(import_pgn_files(&[missing], &out_name)
            .unwrap_err()
            .starts_with("cannot read"));
        assert_eq!(std::fs::read(&out).unwrap(), b"earlier");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
