//! The command lines of the training tools: `cutoff datagen`, `tune`, `train` and `data`,
//! each an argument struct and a `run` that reads the files, calls the training code and
//! reports on stdout (progress on stderr). The evaluation options of `datagen` and `bench`
//! ([`EvalArgs`]) are here too.

use std::io;
use std::path::Path;
use std::sync::Arc;

use clap::{Args, Subcommand};

use super::datagen::{self, DatagenOptions};
use super::records;
use super::train::{self, TrainSettings, TrainingRecord};
use super::tune::{self, TuneSettings};
use crate::games::ataxx::nnue as ataxx_nnue;
use crate::games::ataxx::Ataxx;
use crate::games::chess::nnue;
use crate::games::chess::Chess;
use crate::games::{Evaluation, GameKind, VariantSettings};
use crate::search::ThreadPool;

/// How a game evaluates in `bench` and `datagen`: the built-in net unless told otherwise.
#[derive(Args, Clone, Debug, Default)]
pub struct EvalArgs {
    /// Evaluate the game of `--game` (chess by default) with this NNUE net file instead of
    /// its built-in evaluation (what `setoption name EvalFile` does); other games unchanged
    /// in `bench`.
    #[arg(long, value_name = "NET", conflicts_with = "hce")]
    pub evalfile: Option<String>,
    /// Evaluate chess with the hand-crafted evaluation even when a net is built in (what
    /// `setoption name UseNNUE value false` does).
    #[arg(long)]
    pub hce: bool,
}

impl EvalArgs {
    /// The chess network these arguments select (`None`: the hand-crafted evaluation).
    pub fn chess_net(&self) -> Result<Option<Arc<nnue::Network>>, String> {
        match &self.evalfile {
            Some(path) => nnue::Network::load(Path::new(path))
                .map(|net| Some(Arc::new(net)))
                .map_err(|e| format!("{path}: {e}")),
            None if self.hce => Ok(None),
            None => Ok(nnue::embedded()),
        }
    }

    /// The same choice as protocol settings, for tools that run every game: `--evalfile`
    /// is a net of `game` (read as its `EvalFile` option reads it), which only `game`
    /// uses; `--hce` is every game's hand-crafted evaluation.
    pub fn settings(&self, game: GameKind) -> Result<VariantSettings, String> {
        let evaluation = match &self.evalfile {
            Some(path) => {
                let support = game
                    .info()
                    .eval_net
                    .ok_or_else(|| format!("--evalfile: {game} takes no evaluation net"))?;
                let net = (support.load)(Path::new(path)).map_err(|e| format!("{path}: {e}"))?;
                Evaluation::Net(net)
            }
            None if self.hce => Evaluation::HandCrafted,
            None => Evaluation::BuiltIn,
        };
        Ok(VariantSettings {
            evaluation,
            ..VariantSettings::default()
        })
    }
}

/// An error unless `game` is chess, the only game these tools train: `what` says why.
fn chess_only(game: GameKind, what: &str) -> Result<(), String> {
    if game.plays::<Chess>() {
        Ok(())
    } else {
        Err(format!("{what}, not {game}"))
    }
}

/// `cutoff datagen`: chess self-play writing labelled positions.
#[derive(Args, Clone, Debug)]
pub struct DatagenArgs {
    /// How the games are played and written.
    #[command(flatten)]
    pub options: DatagenOptions,
    /// Opening book: one move sequence from the start position per line (default: the
    /// game's own book, `openings/chess.txt` for chess).
    #[arg(long)]
    pub book: Option<String>,
    /// Output file (appended to).
    #[arg(long)]
    pub out: String,
    /// The evaluation of the self-play searches.
    #[command(flatten)]
    pub eval: EvalArgs,
}

impl DatagenArgs {
    /// Reads the book, plays the games and appends their positions to `out`, reporting
    /// progress on stderr and the totals on stdout.
    pub fn run(&self, game: GameKind) -> Result<(), String> {
        let book = self.book.as_deref().unwrap_or(game.info().opening_book);
        if game.plays::<Ataxx>() {
            return self.run_ataxx(book);
        }
        chess_only(game, "datagen plays chess and ataxx only")?;
        let options = DatagenOptions {
            net: self.eval.chess_net()?,
            ..self.options.clone()
        };
        run_datagen(&options, book, &self.out, false)
    }

    /// Ataxx self-play: bullet `AtaxxBoard` records only; `--evalfile` an Ataxx net.
    fn run_ataxx(&self, book: &str) -> Result<(), String> {
        if self.options.format != datagen::DataFormat::Bullet {
            return Err("ataxx datagen writes --format bullet only".to_string());
        }
        let net = match &self.eval.evalfile {
            Some(path) => Some(Arc::new(
                nnue::Network::load_for(Path::new(path), &ataxx_nnue::ATAXX147)
                    .map_err(|e| format!("{path}: {e}"))?,
            )),
            None => None,
        };
        let options = DatagenOptions {
            net,
            ..self.options.clone()
        };
        run_datagen(&options, book, &self.out, true)
    }
}

/// `cutoff datagen`: reads the book, appends the positions to `out` (Ataxx's games when
/// `ataxx`, else chess's).
fn run_datagen(options: &DatagenOptions, book: &str, out: &str, ataxx: bool) -> Result<(), String> {
    let text =
        std::fs::read_to_string(book).map_err(|e| format!("cannot read book {book}: {e}"))?;
    let book = datagen::read_book(&text);
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(out)
        .map_err(|e| format!("cannot open {out}: {e}"))?;
    let mut writer = io::BufWriter::new(file);
    let bar = indicatif::ProgressBar::new(options.games as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{elapsed_precise} [{bar:30}] {pos}/{len} games, {msg} (eta {eta})",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let started = std::time::Instant::now();
    let mut progress = |summary: &datagen::DatagenSummary| {
        bar.set_position(summary.games as u64);
        let rate = summary.positions as f64 / started.elapsed().as_secs_f64().max(1e-3);
        let message = format!(
            "{} positions, {rate:.0}/s, white +{} ={} -{}",
            summary.positions, summary.white_wins, summary.draws, summary.black_wins
        );
        // Without a terminal (a log file) the bar is hidden: a line every 100 games.
        if bar.is_hidden() && (summary.games % 100 == 0 || summary.games == options.games) {
            eprintln!(
                "{:.0} s: {}/{} games, {message}",
                started.elapsed().as_secs_f64(),
                summary.games,
                options.games
            );
        }
        bar.set_message(message);
    };
    let summary = if ataxx {
        let play = |index, pool: &mut ThreadPool<Ataxx>| {
            crate::games::ataxx::datagen::play_game(index, &book, options, pool)
        };
        datagen::run_games::<Ataxx>(options, &mut writer, &mut progress, &play)?
    } else {
        datagen::run(options, &book, &mut writer, &mut progress)?
    };
    bar.finish();
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "{} games (numbers {} to {}), {} positions written to {out} in {seconds:.0} s ({:.0} positions/s); white +{} ={} -{}",
        summary.games,
        options.first_game,
        options.first_game + summary.games.saturating_sub(1),
        summary.positions,
        summary.positions as f64 / seconds.max(1e-3),
        summary.white_wins,
        summary.draws,
        summary.black_wins
    );
    Ok(())
}

/// `cutoff tune`: Texel tuning of the hand-crafted evaluation.
#[derive(Args, Clone, Debug)]
pub struct TuneArgs {
    /// The labelled positions.
    #[arg(long)]
    pub data: String,
    /// How the weights are fitted.
    #[command(flatten)]
    pub settings: TuneSettings,
    /// Write the weights here (e.g. src/games/chess/weights.rs) instead of stdout.
    #[arg(long)]
    pub out: Option<String>,
}

impl TuneArgs {
    /// Tunes from the built-in weights and writes the result as Rust source.
    pub fn run(&self, game: GameKind) -> Result<(), String> {
        chess_only(game, "tune tunes the chess evaluation only")?;
        run_tune(&self.data, &self.settings, self.out.as_deref())
    }
}

/// `cutoff tune`: tunes from the built-in weights, writes the result.
fn run_tune(data: &str, settings: &TuneSettings, out: Option<&str>) -> Result<(), String> {
    use crate::games::chess::weights::WEIGHTS;

    let text = std::fs::read_to_string(data).map_err(|e| format!("cannot read {data}: {e}"))?;
    let result = tune::run(&text, &WEIGHTS, settings, &mut io::stderr())?;
    let note = format!(
        "Tuned on {} positions of `{data}` ({} iterations, learning rate {},\n\
         regularization {}): K = {:.4}, mean squared error {:.6} -> {:.6};\n\
         on {} held-out positions {:.6} -> {:.6}.",
        result.positions,
        settings.iterations,
        settings.learning_rate,
        settings.regularization,
        result.k,
        result.error_before,
        result.error_after,
        result.validation_positions,
        result.validation_before,
        result.validation_after
    );
    let source = tune::weights_source(&result.weights, &note);
    match out {
        Some(path) => {
            std::fs::write(path, source).map_err(|e| format!("cannot write {path}: {e}"))?;
            println!(
                "K {:.4} error {:.6} -> {:.6} (held out {:.6} -> {:.6}), weights written to {path}",
                result.k,
                result.error_before,
                result.error_after,
                result.validation_before,
                result.validation_after
            );
        }
        None => print!("{source}"),
    }
    Ok(())
}

/// `cutoff train`: trains an NNUE network of `--game`'s feature set on bullet records
/// (`ChessBoard` for chess, `AtaxxBoard` for Ataxx).
#[derive(Args, Clone, Debug)]
pub struct TrainArgs {
    /// The record files, read whole into memory (32 bytes a position).
    #[arg(long, num_args = 1.., required = true)]
    pub data: Vec<String>,
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
        let bytes = read_records(&self.data)?;
        if game.plays::<Chess>() {
            run_train(datagen::decode_bullet(&bytes), &self.out, &self.settings)
        } else if game.plays::<Ataxx>() {
            let records = crate::games::ataxx::nnue::decode_records(&bytes);
            run_train(records, &self.out, &self.settings)
        } else {
            Err(format!(
                "train trains chess and ataxx nets only, not {game}"
            ))
        }
    }
}

/// The whole records of the files `data`, one after the other (a trailing partial record
/// of a file left out with a warning).
fn read_records(data: &[String]) -> Result<Vec<u8>, String> {
    let mut records = Vec::new();
    for path in data {
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        let whole = bytes.len() / datagen::BULLET_RECORD_BYTES;
        if bytes.len() % datagen::BULLET_RECORD_BYTES != 0 {
            eprintln!(
                "warning: {path}: {} trailing bytes ignored (a partial record)",
                bytes.len() % datagen::BULLET_RECORD_BYTES
            );
        }
        records.extend_from_slice(&bytes[..whole * datagen::BULLET_RECORD_BYTES]);
        println!("{path}: {whole} positions");
    }
    Ok(records)
}

/// `cutoff train`: trains on `records`, writes the net and reports each epoch.
fn run_train<R: TrainingRecord>(
    records: Vec<R>,
    out: &str,
    settings: &TrainSettings,
) -> Result<(), String> {
    println!(
        "training {} ({} -> {})x2 -> 1 {} on {} positions ({:.0}% held out), {} epochs, batch {}, lr {} (x{} from {:.0}% of the epochs), wdl {}, scale {}, {} threads, seed {}",
        R::FEATURES.name,
        R::FEATURES.inputs,
        settings.hidden,
        settings.activation,
        records.len(),
        settings.validation * 100.0,
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
    let result = train::train(&records, settings, |epoch| {
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
        /// The record files.
        #[arg(long, num_args = 1.., required = true)]
        data: Vec<String>,
        /// The shuffled file (overwritten).
        #[arg(long)]
        out: String,
        /// Seed of the order.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Converts datagen's text lines `FEN;result` into records with score 0.
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
    /// Reads the input files, writes the output, and says how many records it wrote.
    pub fn run(&self) -> Result<(), String> {
        run_data(&self.action)
    }
}

/// `cutoff data shuffle|convert`: reads the input files, writes the output, and says
/// how many records it wrote.
fn run_data(action: &DataAction) -> Result<(), String> {
    let read = |path: &str| std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"));
    let (bytes, out, count) = match action {
        DataAction::Shuffle { data, out, seed } => {
            let mut all = Vec::new();
            for path in data {
                let (found, left) = records::split_records(&read(path)?);
                if left > 0 {
                    log::warn!("{path}: a partial record of {left} bytes at the end is left out");
                }
                all.extend(found);
            }
            records::shuffle(&mut all, *seed);
            let count = all.len();
            (all.concat(), out, count)
        }
        DataAction::Convert { text, out } => {
            let text = String::from_utf8(read(text)?).map_err(|_| format!("{text}: not UTF-8"))?;
            let converted = records::records_from_text(&text)?;
            (datagen::encode_bullet(&converted), out, converted.len())
        }
    };
    std::fs::write(out, bytes).map_err(|e| format!("cannot write {out}: {e}"))?;
    println!("{count} records written to {out}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games;

    #[test]
    fn only_chess_is_trained() {
        let chess = games::find("chess").expect("chess is registered");
        let connect4 = games::find("connect4").expect("connect4 is registered");
        assert!(chess_only(chess, "datagen plays chess only").is_ok());
        assert_eq!(
            chess_only(connect4, "datagen plays chess only"),
            Err("datagen plays chess only, not connect4".to_string())
        );
    }
}
