//! `cutoff data`: tools on a game's training data: `shuffle` interleaves several files
//! (datagen chunks, or the store's game records replayed and filtered) into one file of the
//! trainer's records in a seeded random order (any game with a [`TrainingSupport`], whose
//! record size it uses); `stats` reports on store files (games, results by colour, plies,
//! scores, duplicates, damaged blocks); `relabel` mixes each record's score with a teacher
//! net's evaluation ([`crate::relabel`]); `export` writes the store's training positions as
//! `FEN;result` lines (what `cutoff tune` reads); `import` turns chess PGN games with
//! engine scores into a store file ([`crate::chess::import`]); `convert` turns chess
//! `FEN;result` lines (no score) into `ChessBoard` records whose score is 0 (train them
//! with `--wdl 1.0`).

use clap::{Args, Subcommand};

use crate::chess::{cli::chess_only, records};
use crate::relabel::relabel;
use crate::store::{expand, read_text_lines, read_training_records, StoreFilter};
use crate::train::read_inputs;
use crate::trained::{with_training, TrainingTask};
use crate::trainer::{check_positions, TrainingRecord};
use crate::TrainingSupport;
use cutoff::games::GameKind;
// The records in a random order that depends only on the seed (Fisher-Yates), as the
// match runner shuffles its openings.
use cutoff::rng::shuffle;

/// `cutoff data`: tools on training records.
#[derive(Args, Clone, Debug)]
pub struct DataArgs {
    /// What to do with the records.
    #[command(subcommand)]
    pub action: DataAction,
}

/// The `cutoff data` tools.
#[derive(Subcommand, Clone, Debug)]
pub enum DataAction {
    /// Reads every record of the files (whole, into memory) and writes them all to OUT in
    /// a random order that depends only on the seed.
    Shuffle {
        /// The record files, or store files (`.cgr`) and directories of them (replayed).
        #[arg(long, num_args = 1.., required = true)]
        data: Vec<String>,
        /// The shuffled file (overwritten).
        #[arg(long)]
        out: String,
        /// Seed of the order.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Also write each record's images under the board's symmetries (Ataxx: the 8
        /// rotations and reflections of the square), each a position of the same value.
        #[arg(long)]
        symmetries: bool,
        /// Leave out the records whose side to move is in check (gomoku: facing a four),
        /// positions the search never evaluates statically.
        #[arg(long)]
        skip_in_check: bool,
        /// Which positions of store files are written.
        #[command(flatten)]
        store: StoreFilter,
    },
    /// Self-distillation: writes each record (as `--symmetries` would: with its images)
    /// with the score `round(W · T + (1 - W) · score)`, `T` a teacher net's evaluation
    /// averaged over the images written (exactly symmetric), `W` the `--weight`; the
    /// records in the input's order, each one's images after it.
    Relabel {
        /// The record files, or store files (`.cgr`) and directories of them (replayed).
        #[arg(long, num_args = 1.., required = true)]
        data: Vec<String>,
        /// The teacher: a net file of one of the game's feature sets.
        #[arg(long)]
        teacher: std::path::PathBuf,
        /// The teacher's share of the new score (0 to 1).
        #[arg(long, value_parser = parse_weight)]
        weight: f64,
        /// Write (and average the teacher over) each record's images under the board's
        /// symmetries.
        #[arg(long)]
        symmetries: bool,
        /// The relabelled file (overwritten).
        #[arg(long)]
        out: String,
    },
    /// Reads store files (`.cgr`, or directories of them) and reports their games,
    /// results by colour, plies, scores, duplicate positions and damaged blocks.
    Stats {
        /// The store files or directories.
        #[arg(long, num_args = 1.., required = true)]
        data: Vec<String>,
    },
    /// Writes the training positions of store files (those `datagen --format bullet`
    /// writes as records) as `FEN;result` lines, the result the first player's (`1.0`,
    /// `0.5` or `0.0`; White's in chess: what `cutoff tune` reads).
    Export {
        /// The store files (`.cgr`) or directories of them.
        #[arg(long, num_args = 1.., required = true)]
        data: Vec<String>,
        /// The text file (overwritten).
        #[arg(long)]
        out: String,
        /// Which positions are written.
        #[command(flatten)]
        store: StoreFilter,
    },
    /// Chess: the games of PGN files (plain or `.bz2`) whose move comments carry the
    /// engines' scores (fastchess's `{+0.31/12 0.123s}`, OpenBench's DATAGEN uploads) as a
    /// store file; a game that cannot be replayed is skipped with its number and reason.
    Import {
        /// The PGN files.
        #[arg(num_args = 1.., required = true)]
        files: Vec<String>,
        /// The store file (`.cgr`; replaced whole, once every game is read).
        #[arg(long)]
        out: String,
    },
    /// Converts chess's text lines `FEN;result` (`data export`'s) into records with score 0.
    Convert {
        /// The text file.
        #[arg(long)]
        text: String,
        /// The record file (overwritten).
        #[arg(long)]
        out: String,
    },
}

impl DataArgs {
    /// Reads the input files of `game`'s records, writes the output, and says how many
    /// records it wrote.
    pub fn run(&self, game: GameKind) -> Result<(), String> {
        run_data(&self.action, game)
    }
}

/// `cutoff data`: reads the input files, writes the output, and says how many records it
/// wrote (`stats`: reports on the store files).
fn run_data(action: &DataAction, game: GameKind) -> Result<(), String> {
    let (bytes, out, count) = match action {
        DataAction::Import { files, out } => {
            chess_only(game, "data import reads chess games")?;
            let summary = crate::chess::import::import_pgn_files(files, out)?;
            for skipped in &summary.skipped {
                eprintln!("skipped: {skipped}");
            }
            println!("{}", summary.line(out));
            return Ok(());
        }
        DataAction::Convert { text, out } => {
            chess_only(game, "data convert reads chess positions")?;
            let bytes = std::fs::read(text).map_err(|e| format!("cannot read {text}: {e}"))?;
            let text = String::from_utf8(bytes).map_err(|_| format!("{text}: not UTF-8"))?;
            let converted = records::records_from_text(&text)?;
            (records::encode_bullet(&converted), out, converted.len())
        }
        _ => {
            let tool = format!("data {}", action.name());
            match with_training(game, &tool, action)?? {
                Some(written) => written,
                None => return Ok(()),
            }
        }
    };
    std::fs::write(out, bytes).map_err(|e| format!("cannot write {out}: {e}"))?;
    println!("{count} records written to {out}");
    Ok(())
}

/// What a data tool wrote: the bytes, the file they go to and the records (or lines) they
/// are; `None` for a tool that only reports.
type Written<'a> = Option<(Vec<u8>, &'a String, usize)>;

impl DataAction {
    /// The tool's name on the command line.
    fn name(&self) -> &'static str {
        match self {
            DataAction::Shuffle { .. } => "shuffle",
            DataAction::Relabel { .. } => "relabel",
            DataAction::Stats { .. } => "stats",
            DataAction::Export { .. } => "export",
            DataAction::Import { .. } => "import",
            DataAction::Convert { .. } => "convert",
        }
    }
}

/// The tools on any trained game's data (`shuffle`, `relabel`, `stats`, `export`).
impl<'a> TrainingTask for &'a DataAction {
    type Output = Result<Written<'a>, String>;

    fn run_as<G: TrainingSupport>(self, game: GameKind) -> Result<Written<'a>, String> {
        let tool = (self.name(), game);
        match self {
            DataAction::Shuffle {
                data,
                out,
                seed,
                symmetries,
                skip_in_check,
                store,
            } => {
                let images = image_count::<G>(*symmetries, tool)?;
                let flat = gather::<G>(data, store, images, *skip_in_check)?;
                let mut all: Vec<&[u8]> = flat.chunks_exact(G::RECORD_BYTES).collect();
                shuffle(&mut all, *seed);
                let count = all.len();
                Ok(Some((all.concat(), out, count)))
            }
            DataAction::Relabel {
                data,
                teacher,
                weight,
                symmetries,
                out,
            } => {
                let images = image_count::<G>(*symmetries, tool)?;
                let net = cutoff::nnue::Network::load_among(teacher, G::Record::FEATURE_SETS)
                    .map_err(|e| format!("--teacher {}: {e}", teacher.display()))?;
                crate::check_output_path(out)?;
                let records = gather::<G>(data, &StoreFilter::default(), 1, false)?;
                let mut relabelled = Vec::with_capacity(records.len() * images);
                let stats = relabel::<G>(&records, &net, *weight, images, &mut relabelled);
                println!(
                    "{} records, mean score change {:.1}, mean spread of the teacher over the images {:.1}",
                    stats.records, stats.mean_change, stats.mean_spread
                );
                let count = relabelled.len() / G::RECORD_BYTES;
                Ok(Some((relabelled, out, count)))
            }
            DataAction::Stats { data } => {
                let files = expand(data)?;
                let dedup = StoreFilter {
                    dedup: true,
                    ..StoreFilter::default()
                };
                let stats = read_training_records::<G>(&files, &dedup, false, &mut Vec::new())?;
                println!("{}", stats.report());
                Ok(None)
            }
            DataAction::Export { data, out, store } => {
                let mut text = Vec::new();
                let stats = read_text_lines::<G>(&expand(data)?, store, &mut text)?;
                for error in &stats.errors {
                    eprintln!("warning: {error}");
                }
                Ok(Some((text, out, stats.kept)))
            }
            DataAction::Import { .. } | DataAction::Convert { .. } => Err(format!(
                "data {}: not a tool on trained records",
                self.name()
            )),
        }
    }
}

/// The images a record is written as: the game's symmetries with `symmetries`, else 1;
/// an error for `data tool` if `game` has none.
fn image_count<G: TrainingSupport>(
    symmetries: bool,
    (tool, game): (&str, GameKind),
) -> Result<usize, String> {
    match (symmetries, G::SYMMETRIES) {
        (false, _) => Ok(1),
        (true, 1) => Err(format!(
            "data {tool} --symmetries: {game} has no board symmetry"
        )),
        (true, count) => Ok(count),
    }
}

/// A weight from 0 to 1.
fn parse_weight(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(weight) if (0.0..=1.0).contains(&weight) => Ok(weight),
        _ => Err(format!("{text:?} is no weight from 0 to 1")),
    }
}

/// The records of the files `data` (store files replayed through `store`), each checked,
/// with those in check left out if `skip_in_check`, each followed by its images under the
/// first `images` symmetries.
fn gather<G: TrainingSupport>(
    data: &[String],
    store: &StoreFilter,
    images: usize,
    skip_in_check: bool,
) -> Result<Vec<u8>, String> {
    let size = G::RECORD_BYTES;
    let mut flat = Vec::new();
    for file in expand(data)? {
        let path = file.display().to_string();
        let bytes = read_inputs::<G>(std::slice::from_ref(&file), store, false)?;
        check_positions(&G::decode(&bytes)).map_err(|e| format!("{path}: {e}"))?;
        let (mut found, left) = split_records(&bytes, size);
        if left > 0 {
            log::warn!("{path}: a partial record of {left} bytes at the end is left out");
        }
        if skip_in_check {
            let count = found.len();
            found.retain(|record| !G::record_in_check(record));
            log::info!("{path}: {} records in check left out", count - found.len());
        }
        for record in found {
            for symmetry in 0..images {
                G::push_image(record, symmetry, &mut flat);
            }
        }
    }
    Ok(flat)
}

/// The whole records of `size` bytes in `bytes` (a trailing partial record is left out)
/// and the number of bytes left out.
pub fn split_records(bytes: &[u8], size: usize) -> (Vec<&[u8]>, usize) {
    let chunks = bytes.chunks_exact(size);
    let left = chunks.remainder().len();
    (chunks.collect(), left)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The size of a bullet record of chess and Ataxx.
    const BULLET_RECORD_BYTES: usize = 32;

    #[test]
    fn shuffling_keeps_every_record_and_depends_on_the_seed_only() {
        let original: Vec<u32> = (0..1000).collect();
        let mut a = original.clone();
        let mut b = original.clone();
        let mut c = original.clone();
        shuffle(&mut a, 7);
        shuffle(&mut b, 7);
        shuffle(&mut c, 8);
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a, original);
        a.sort_unstable();
        assert_eq!(a, original);
    }

    #[test]
    fn records_split_whole_and_report_a_partial_tail() {
        let bytes: Vec<u8> = (0..(3 * BULLET_RECORD_BYTES + 5) as u32)
            .map(|i| i as u8)
            .collect();
        let (records, left) = split_records(&bytes, BULLET_RECORD_BYTES);
        assert_eq!((records.len(), left), (3, 5));
        assert_eq!(records[1][0], BULLET_RECORD_BYTES as u8);
    }

    #[test]
    fn shuffle_refuses_bytes_that_are_no_records_of_the_game() {
        let dir = std::env::temp_dir().join(format!("cutoff-data-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let text = dir.join("text.bin");
        std::fs::write(
            &text,
            "position startpos moves e2e4 e7e5 g1f3 b8c6 f1b5 a7a6\n",
        )
        .unwrap();
        let action = DataAction::Shuffle {
            data: vec![text.display().to_string()],
            out: dir.join("out.bin").display().to_string(),
            seed: 1,
            symmetries: false,
            skip_in_check: false,
            store: StoreFilter::default(),
        };
        let chess = cutoff::games::find("chess").unwrap();
        let error = run_data(&action, chess).unwrap_err();
        assert!(error.contains("is no position of the game"), "{error}");
        assert!(!dir.join("out.bin").exists());
    }

    #[test]
    fn records_in_check_are_left_out_on_request() {
        use crate::gomoku::GomokuRecord;
        let dir = std::env::temp_dir().join(format!("cutoff-check-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let stones = |cells: &[usize]| {
            let mut words = [0u64; 4];
            cells.iter().for_each(|&c| words[c / 64] |= 1 << (c % 64));
            words
        };
        // The side to move's scattered stones; the other side's four on rank 7, or an
        // open three and a stone apart.
        let ours = stones(&[0, 2, 4, 6]);
        let four = GomokuRecord::new([ours, stones(&[108, 109, 110, 111])], 0, 0.0);
        let three = GomokuRecord::new([ours, stones(&[108, 109, 110, 144])], 0, 0.5);
        let input = dir.join("in.bin");
        std::fs::write(&input, [four.to_bytes(), three.to_bytes()].concat()).unwrap();
        let action = |skip_in_check| DataAction::Shuffle {
            data: vec![input.display().to_string()],
            out: dir.join("out.bin").display().to_string(),
            seed: 1,
            symmetries: false,
            skip_in_check,
            store: StoreFilter::default(),
        };
        let gomoku = cutoff::games::find("gomoku").unwrap();
        run_data(&action(false), gomoku).unwrap();
        assert_eq!(std::fs::read(dir.join("out.bin")).unwrap().len(), 2 * 72);
        run_data(&action(true), gomoku).unwrap();
        assert_eq!(
            std::fs::read(dir.join("out.bin")).unwrap(),
            three.to_bytes()
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn symmetries_multiply_the_records_of_a_game_that_has_them() {
        use bulletformat::BulletFormat;
        let dir = std::env::temp_dir().join(format!("cutoff-sym-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let input = dir.join("in.bin");
        let record: bulletformat::AtaxxBoard =
            "x5x/7/7/3o3/7/7/x5x x 0 1 | 0 | 0.5".parse().unwrap();
        std::fs::write(&input, bulletformat::AtaxxBoard::as_bytes_slice(&[record])).unwrap();
        let action = |symmetries| DataAction::Shuffle {
            data: vec![input.display().to_string()],
            out: dir.join("out.bin").display().to_string(),
            seed: 1,
            symmetries,
            skip_in_check: false,
            store: StoreFilter::default(),
        };
        let ataxx = cutoff::games::find("ataxx").unwrap();
        run_data(&action(true), ataxx).unwrap();
        let written = std::fs::read(dir.join("out.bin")).unwrap();
        // Four corners and the centre: the position is its own image under all 8.
        assert_eq!(written.len(), 8 * BULLET_RECORD_BYTES);
        assert!(written
            .chunks_exact(32)
            .all(|image| image == &written[..32]));
        let chess = cutoff::games::find("chess").unwrap();
        let error = run_data(&action(true), chess).unwrap_err();
        assert!(error.contains("chess has no board symmetry"), "{error}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn relabel_writes_the_images_and_refuses_a_teacher_of_another_game() {
        use bulletformat::BulletFormat;
        use cutoff::games::ataxx::nnue::ATAXX2X2_PLUS147;
        use cutoff::games::chess::nnue::CHESS768;
        use cutoff::nnue::{random_network, Activation};
        let dir = std::env::temp_dir().join(format!("cutoff-relabel-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let input = dir.join("in.bin");
        let record: bulletformat::AtaxxBoard =
            "x5o/7/2x4/7/4o2/7/o5x x 0 1 | 40 | 1.0".parse().unwrap();
        std::fs::write(&input, bulletformat::AtaxxBoard::as_bytes_slice(&[record])).unwrap();
        let teacher = dir.join("teacher.nnue");
        random_network(ATAXX2X2_PLUS147, 8, Activation::SCReLU, 3)
            .save(&teacher)
            .unwrap();
        let chess_net = dir.join("chess.nnue");
        random_network(CHESS768, 8, Activation::SCReLU, 3)
            .save(&chess_net)
            .unwrap();
        let action = |teacher: &std::path::Path| DataAction::Relabel {
            data: vec![input.display().to_string()],
            teacher: teacher.to_path_buf(),
            weight: 0.25,
            symmetries: true,
            out: dir.join("out.bin").display().to_string(),
        };
        let ataxx = cutoff::games::find("ataxx").unwrap();
        run_data(&action(&teacher), ataxx).unwrap();
        let written = std::fs::read(dir.join("out.bin")).unwrap();
        let images = crate::ataxx::decode_records(&written);
        assert_eq!(images.len(), 8);
        assert!(images
            .iter()
            .all(|image| image.score() == images[0].score()));
        for bad in [chess_net.as_path(), dir.join("missing.nnue").as_path()] {
            let error = run_data(&action(bad), ataxx).unwrap_err();
            assert!(error.starts_with("--teacher"), "{error}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
