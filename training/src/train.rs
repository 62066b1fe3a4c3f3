//! `cutoff train`: trains an NNUE network of `--game`'s feature set on its records (the
//! store's games replayed, or record files) with the generic trainer
//! ([`crate::trainer::train_on`]), reporting each epoch on stdout.

use std::path::{Path, PathBuf};

use clap::Args;

use crate::blocks;
use crate::store::{expand, read_training_records, StoreFilter};
use crate::trained::{with_training, TrainingTask};
use crate::trainer::{self, EpochReport, TrainSettings, TrainingRecord};
use crate::TrainingSupport;
use cutoff::games::GameKind;

/// `cutoff train`: trains an NNUE network of `--game`'s feature set on its records: the
/// store's game-record files (`data/<game>/`, replayed) or the trainer's record files
/// (`ChessBoard` for chess, `AtaxxBoard` for Ataxx).
#[derive(Args, Clone, Debug)]
pub struct TrainArgs {
    /// The data: store files (`.cgr`) and directories of them, or record files, read whole
    /// into memory.
    #[arg(long, num_args = 1.., required = true)]
    pub data: Vec<String>,
    /// Data held out for the validation loss in place of the last `--validation` fraction
    /// of `--data` (files named here are left out of `--data`'s directories): other games
    /// than the training's give an honest loss.
    #[arg(long, num_args = 1..)]
    pub validation_data: Vec<String>,
    /// Which positions of store files are trained on.
    #[command(flatten)]
    pub store: StoreFilter,
    /// Store files: also train on each position's images under the board's symmetries
    /// (Ataxx and gomoku: the 8 of the square).
    #[arg(long)]
    pub symmetries: bool,
    /// Write the trained net here.
    #[arg(long)]
    pub out: String,
    /// How the net is trained.
    #[command(flatten)]
    pub settings: TrainSettings,
}

impl TrainArgs {
    /// Loads the records of `game`, trains, writes the net and reports each epoch.
    pub fn run(&self, game: GameKind) -> Result<(), String> {
        with_training(game, "train", self)?
    }
}

impl TrainingTask for &TrainArgs {
    type Output = Result<(), String>;

    fn run_as<G: TrainingSupport>(self, _game: GameKind) -> Result<(), String> {
        crate::check_output_path(&self.out)?;
        let held_out = expand(&self.validation_data)?;
        let files: Vec<PathBuf> = expand(&self.data)?
            .into_iter()
            .filter(|file| !held_out.contains(file))
            .collect();
        let records = read_inputs::<G>(&files, &self.store, self.symmetries)?;
        // The held-out positions as they are: no images, every copy.
        let validation = read_inputs::<G>(&held_out, &StoreFilter::default(), false)?;
        run_train::<G>(&records, &validation, &self.out, &self.settings)
    }
}

/// The training records of `files`, in order: a store file replayed through `filter`
/// (with each position's images if `symmetries`; its damaged blocks reported as warnings,
/// the rest used), any other file read as the game's records.
pub(crate) fn read_inputs<G: TrainingSupport>(
    files: &[PathBuf],
    filter: &StoreFilter,
    symmetries: bool,
) -> Result<Vec<u8>, String> {
    let mut records = Vec::new();
    for file in files {
        let name = file.display().to_string();
        let head = read_head(file)?;
        if !blocks::is_store_file(&head) {
            records.extend(read_records(std::slice::from_ref(&name), G::RECORD_BYTES)?);
            continue;
        }
        let before = records.len();
        let file = std::slice::from_ref(file);
        let stats = read_training_records::<G>(file, filter, symmetries, &mut records)?;
        for error in &stats.errors {
            eprintln!("warning: {error}");
        }
        println!(
            "{name}: {} games, {} positions kept of {}, {} records",
            stats.games,
            stats.kept,
            stats.samples,
            (records.len() - before) / G::RECORD_BYTES
        );
    }
    Ok(records)
}

/// The first bytes of `file` (enough to tell a store file).
fn read_head(file: &Path) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let mut head = Vec::with_capacity(4);
    std::fs::File::open(file)
        .and_then(|f| f.take(4).read_to_end(&mut head))
        .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    Ok(head)
}

/// The whole records (of `size` bytes) of the files `data`, one after the other (a
/// trailing partial record of a file left out with a warning).
pub(crate) fn read_records(data: &[String], size: usize) -> Result<Vec<u8>, String> {
    let mut records = Vec::new();
    for path in data {
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        let whole = bytes.len() / size;
        if bytes.len() % size != 0 {
            eprintln!(
                "warning: {path}: {} trailing bytes ignored (a partial record)",
                bytes.len() % size
            );
        }
        records.extend_from_slice(&bytes[..whole * size]);
        println!("{path}: {whole} positions");
    }
    Ok(records)
}

/// Trains on `records` (whole records of `G`), validated on `validation` (or the last
/// fraction of `records` if it is empty), writes the net and reports each epoch.
fn run_train<G: TrainingSupport>(
    records: &[u8],
    validation: &[u8],
    out: &str,
    settings: &TrainSettings,
) -> Result<(), String> {
    let feature_sets = G::Record::FEATURE_SETS;
    let features = trainer::find_feature_set(feature_sets, settings.feature_set.as_deref())?;
    println!(
        "training {} ({} -> {})x2 -> {} {} on {} positions ({}), {} epochs, batch {}, lr {} (x{} from {:.0}% of the epochs), wdl {}, scale {}, {} threads, seed {}",
        features.name,
        features.inputs,
        settings.hidden,
        settings.output_buckets,
        settings.activation,
        records.len() / G::RECORD_BYTES,
        if validation.is_empty() {
            format!("{:.0}% held out", settings.validation * 100.0)
        } else {
            format!(
                "validated on {} other positions",
                validation.len() / G::RECORD_BYTES
            )
        },
        settings.epochs,
        settings.batch,
        settings.lr,
        settings.lr_gamma,
        settings.lr_drop * 100.0,
        settings.wdl,
        settings.scale,
        settings.threads,
        settings.seed
    );
    let started = std::time::Instant::now();
    let (records, validation) = (G::decode(records), G::decode(validation));
    let result = trainer::train_on(&records, &validation, settings, |epoch: &EpochReport| {
        println!(
            "epoch {:>3} lr {:.2e} train loss {:.6} validation loss {:.6} {:.0} positions/s{}",
            epoch.epoch,
            epoch.lr,
            epoch.train_loss,
            epoch.validation_loss,
            epoch.positions_per_second,
            epoch
                .checkpoint
                .as_ref()
                .map(|p| format!(" -> {}", p.display()))
                .unwrap_or_default()
        );
    })?;
    result
        .net
        .quantise()
        .save(Path::new(out))
        .map_err(|e| format!("cannot write {out}: {e}"))?;
    println!(
        "{} training and {} validation positions, validation loss {:.6} -> {:.6}, {:.0} s; net written to {out}",
        result.train_positions,
        result.validation_positions,
        result.initial_validation_loss,
        result.epochs.last().map_or(f64::NAN, |e| e.validation_loss),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
