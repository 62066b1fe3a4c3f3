//! The `cutoff` command line: without a subcommand it speaks UCI/UGI on stdin/stdout.

use std::io::{self, BufReader};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Parser, Subcommand};

use cutoff::games::chess::nnue::{self, Activation};
use cutoff::games::chess::training::datagen::{self, DataFormat, DatagenOptions};
use cutoff::games::chess::training::train::{self, TrainSettings};
use cutoff::games::chess::training::tune::{self, TuneSettings};
use cutoff::games::{self, chess, Evaluation, GameKind};
use cutoff::protocol;
use cutoff::protocol::options::DEFAULT_HASH_MB;
use cutoff::tools::bench;
use cutoff::tools::perft::{self, PerftOptions};
use cutoff::tools::solve::{self, SolveOptions};
use cutoff::tools::tree_stats::{self, TreeStatsOptions};

#[derive(Parser)]
#[command(
    name = "cutoff",
    version,
    about = "A game-playing engine speaking UCI and UGI"
)]
struct Cli {
    /// Game to play (`cutoff games` lists them).
    #[arg(long, default_value_t = games::default_game(), value_parser = parse_game, global = true,
          help = format!("Game to play: {}", games::names(", ")))]
    game: GameKind,
    #[command(subcommand)]
    command: Option<Tool>,
}

/// How chess evaluates in `bench` and `datagen`: the built-in net unless told otherwise.
#[derive(Args)]
struct EvalArgs {
    /// Evaluate chess with this NNUE net file instead of the built-in evaluation (what
    /// `setoption name EvalFile` does); other games unchanged.
    #[arg(long, value_name = "NET", conflicts_with = "hce")]
    evalfile: Option<String>,
    /// Evaluate chess with the hand-crafted evaluation even when a net is built in (what
    /// `setoption name UseNNUE value false` does).
    #[arg(long)]
    hce: bool,
}

impl EvalArgs {
    /// The chess network these arguments select (`None`: the hand-crafted evaluation).
    fn chess_net(&self) -> Result<Option<Arc<nnue::Network>>, String> {
        match &self.evalfile {
            Some(path) => nnue::Network::load(Path::new(path))
                .map(|net| Some(Arc::new(net)))
                .map_err(|e| format!("{path}: {e}")),
            None if self.hce => Ok(None),
            None => Ok(nnue::embedded()),
        }
    }

    /// The same choice as protocol settings, for tools that run every game.
    fn settings(&self) -> Result<games::VariantSettings, String> {
        let evaluation = match self.chess_net()? {
            Some(net) => Evaluation::Net(net),
            None => Evaluation::HandCrafted,
        };
        Ok(games::VariantSettings {
            evaluation,
            ..games::VariantSettings::default()
        })
    }
}

#[derive(Subcommand)]
enum Tool {
    /// Lists the games: name, players, bench depth, opening book, SPRT time control and
    /// summary, one per line, tab-separated (`scripts/sprt.sh` reads it).
    Games,
    /// Fixed-depth search of fixed positions of every game; prints `Bench: N nodes M nps`.
    Bench {
        /// Depth for every game instead of each game's default.
        depth: Option<u32>,
        #[command(flatten)]
        eval: EvalArgs,
    },
    /// Counts leaf positions DEPTH plies deep, per root move.
    Perft {
        /// Plies to count.
        depth: u32,
        /// Start from this position instead of the start position.
        #[arg(long)]
        fen: Option<String>,
        /// Moves to play first, space-separated, in the game's notation.
        #[arg(long, default_value = "")]
        moves: String,
        /// Chess960 castling notation and FENs.
        #[arg(long)]
        chess960: bool,
    },
    /// Plays engines against each other, refereed by cutoff's rules (fastchess-style
    /// arguments: `-engine cmd=./a name=a -engine cmd=./b -each tc=10+0.1 proto=ugi ...`).
    #[command(disable_help_flag = true)]
    Match {
        /// The match arguments.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Compares minimax, alpha-beta, alpha-beta with ordering and PVS with a table:
    /// nodes, leaves, cut-offs, first-move cut-off rate and time.
    TreeStats {
        /// Start from this position instead of the start position.
        #[arg(long)]
        fen: Option<String>,
        /// Moves to play first, space-separated, in the game's notation.
        #[arg(long, default_value = "")]
        moves: String,
        /// Search depth (default: to the end of the game).
        #[arg(long)]
        depth: Option<u32>,
        /// Measure every position K plies further (one per move sequence) and their total.
        #[arg(long, value_name = "K")]
        stones: Option<u32>,
        /// With --stones: print a table for each position too.
        #[arg(long)]
        each: bool,
        /// Print CSV instead of tables.
        #[arg(long)]
        csv: bool,
        /// Write an SVG chart of nodes per depth (log scale) to this file.
        #[arg(long, value_name = "FILE.svg")]
        plot: Option<String>,
        /// Transposition table size in MiB.
        #[arg(long, default_value_t = 16)]
        hash: usize,
    },
    /// Exact value of a position and of every root move (or of every position of a file).
    Solve {
        /// Start from this position instead of the start position.
        #[arg(long)]
        fen: Option<String>,
        /// Moves to play first, space-separated, in the game's notation.
        #[arg(long, default_value = "")]
        moves: String,
        /// Solve every position of this file: one FEN or move sequence per line.
        #[arg(long)]
        file: Option<String>,
        /// Connect Four: the file is in Pascal Pons' format ("<columns> <score>"); verify
        /// every score and report mean time, mean nodes and positions per second.
        #[arg(long, requires = "file")]
        check: bool,
        /// Solve only the first N positions of the file.
        #[arg(long, value_name = "N")]
        limit: Option<usize>,
        /// Node budget per position; the value is `unknown` when it runs out.
        #[arg(long)]
        nodes: Option<u64>,
        /// Transposition table size in MiB (a fresh table for each position).
        #[arg(long, default_value_t = 64)]
        hash: usize,
        /// Only win, draw or loss for each value, no distances (faster in Connect Four).
        #[arg(long, conflicts_with = "check")]
        weak: bool,
        /// Threads solving the root moves side by side (Connect Four; a mirror image once).
        #[arg(long, default_value_t = 1)]
        threads: usize,
    },
    /// Chess self-play at a fixed node count per move, appending quiet positions labelled
    /// with the game result: `FEN;result` lines (result 1.0/0.5/0.0 for White) for `tune`,
    /// or bullet `ChessBoard` records with the search score for NNUE training.
    Datagen {
        /// Games to play.
        #[arg(long, default_value_t = 100)]
        games: usize,
        /// Number of the first game: continue a run that played this many games.
        #[arg(long, default_value_t = 0)]
        first_game: usize,
        /// Nodes searched per move.
        #[arg(long, default_value_t = 5000)]
        nodes: u64,
        /// Games played at the same time.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Random legal plies after the book line: `N`, or `A-B` for A to B (per game).
        #[arg(long, default_value = "4", value_parser = parse_range)]
        random_plies: (usize, usize),
        /// Output format: `text` (FEN;result, for tune) or `bullet` (32-byte records).
        #[arg(long, default_value = "text", value_parser = ["text", "bullet"])]
        format: String,
        /// Seed: the output depends only on the arguments.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Opening book: one move sequence from the start position per line.
        #[arg(long, default_value = "openings/chess.txt")]
        book: String,
        /// Output file (appended to).
        #[arg(long)]
        out: String,
        #[command(flatten)]
        eval: EvalArgs,
    },
    /// Texel tuning of the chess evaluation on `FEN;result` lines (from `datagen`): fits
    /// the sigmoid scale K, minimises the squared error with Adam, writes the weights as
    /// Rust source.
    Tune {
        /// The labelled positions.
        #[arg(long)]
        data: String,
        /// Adam steps (full passes over the data).
        #[arg(long, default_value_t = 1000)]
        iterations: usize,
        /// Adam step size in centipawns.
        #[arg(long, default_value_t = 1.0)]
        learning_rate: f64,
        /// Threads for the gradient.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// L2 penalty per squared centipawn of distance from the current weights.
        #[arg(long, default_value_t = 0.0)]
        regularization: f64,
        /// Fraction of the positions (the last ones: whole games) held out for validation.
        #[arg(long, default_value_t = 0.1)]
        holdout: f64,
        /// Write the weights here (e.g. src/games/chess/weights.rs) instead of stdout.
        #[arg(long)]
        out: Option<String>,
    },
    /// Trains a chess NNUE network `(768 -> N)x2 -> 1` on bullet `ChessBoard` records (from
    /// `datagen --format bullet`, or bullet's tools) on the CPU; writes it in bullet's
    /// quantised layout (see nets/README.md).
    Train {
        /// The record files, read whole into memory (32 bytes a position).
        #[arg(long, num_args = 1.., required = true)]
        data: Vec<String>,
        /// Write the trained net here.
        #[arg(long)]
        out: String,
        /// Hidden size N.
        #[arg(long, default_value_t = 128)]
        hidden: usize,
        /// Activation of the hidden layer.
        #[arg(long, default_value = "screlu", value_parser = ["screlu", "crelu"])]
        activation: String,
        /// Passes over the training positions.
        #[arg(long, default_value_t = 20)]
        epochs: usize,
        /// Positions per AdamW step.
        #[arg(long, default_value_t = 4096)]
        batch: usize,
        /// Initial learning rate.
        #[arg(long, default_value_t = 0.002)]
        lr: f32,
        /// The learning rate drops ×0.1 from this fraction of the epochs on.
        #[arg(long, default_value_t = 0.75)]
        lr_drop: f64,
        /// Weight of the game result in the target (the rest: the search score). 0 by
        /// default: on cutoff's self-play data, weights of 0.3 and more lost games and 0.1
        /// gained nothing (nets/README.md).
        #[arg(long, default_value_t = 0.0)]
        wdl: f32,
        /// Sigmoid scale in centipawns (evaluation and score).
        #[arg(long, default_value_t = 400.0)]
        scale: f32,
        /// Fraction of the positions (the last ones) held out for the validation loss.
        #[arg(long, default_value_t = 0.05)]
        validation: f64,
        /// Threads computing gradients.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Seed of the initial weights and the shuffles.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Write the net of every epoch into this directory (`epoch-K.nnue`).
        #[arg(long)]
        checkpoints: Option<String>,
    },
    /// Chess training records (bullet `ChessBoard`, 32 bytes a position): `data shuffle`
    /// interleaves files in a seeded random order, `data convert` turns datagen's text
    /// format into records (score 0: train them with `--wdl 1.0`).
    Data {
        #[command(subcommand)]
        action: DataAction,
    },
    /// Opening books built by the game's own solver (Connect Four: `book build`).
    Book {
        #[command(subcommand)]
        action: BookAction,
    },
    /// Plays a game against the engine in the terminal (type moves; undo, hint, quit).
    Play {
        /// Clock for the engine, `[moves/]base+inc` in seconds (e.g. `5+0.1`).
        #[arg(long, conflicts_with_all = ["depth", "movetime"])]
        tc: Option<String>,
        /// Fixed search depth for the engine.
        #[arg(long, conflicts_with = "movetime")]
        depth: Option<u32>,
        /// Fixed time per engine move in ms (default 1000 when no limit is given).
        #[arg(long)]
        movetime: Option<u64>,
        /// Which side you play.
        #[arg(long, default_value = "first", value_parser = ["first", "second"])]
        human: String,
        /// Engine command line (default: this program, over UGI).
        #[arg(long)]
        engine: Option<String>,
        /// Protocol of `--engine`: ugi, uci or uai (Ataxx only).
        #[arg(long, default_value = "ugi", value_parser = ["ugi", "uci", "uai"])]
        proto: String,
    },
}

#[derive(Subcommand)]
enum DataAction {
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

#[derive(Subcommand)]
enum BookAction {
    /// Builds the first player's strategy book: a winning move for every first-player
    /// position at plies 0, 2, .. below PLIES reachable when the first player follows it.
    /// Entries are appended to OUT.partial as they are found (a stopped run resumes).
    Build {
        /// Plies the book covers.
        #[arg(long)]
        plies: u32,
        /// The finished book (sorted).
        #[arg(long)]
        out: String,
        /// The solver's table in MiB, kept from one position to the next.
        #[arg(long, default_value_t = 1024)]
        hash: usize,
    },
}

fn parse_game(name: &str) -> Result<GameKind, String> {
    games::find(name)
        .ok_or_else(|| format!("unknown game '{name}' (known: {})", games::names(", ")))
}

/// `cutoff data shuffle|convert`: reads the input files, writes the output, and says
/// how many records it wrote.
fn run_data(action: DataAction) -> Result<(), String> {
    use games::chess::training::{datagen::encode_bullet, records};
    let read = |path: &str| std::fs::read(path).map_err(|e| format!("cannot read {path}: {e}"));
    let (bytes, out, count) = match action {
        DataAction::Shuffle { data, out, seed } => {
            let mut all = Vec::new();
            for path in &data {
                let (found, left) = records::split_records(&read(path)?);
                if left > 0 {
                    log::warn!("{path}: a partial record of {left} bytes at the end is left out");
                }
                all.extend(found);
            }
            records::shuffle(&mut all, seed);
            let count = all.len();
            (all.concat(), out, count)
        }
        DataAction::Convert { text, out } => {
            let text = String::from_utf8(read(&text)?).map_err(|_| format!("{text}: not UTF-8"))?;
            let converted = records::records_from_text(&text)?;
            (encode_bullet(&converted), out, converted.len())
        }
    };
    std::fs::write(&out, bytes).map_err(|e| format!("cannot write {out}: {e}"))?;
    println!("{count} records written to {out}");
    Ok(())
}

/// `cutoff games`: one tab-separated line per registered game.
fn list_games() -> ExitCode {
    println!("name\tplayers\tbench_depth\topening_book\tmatch_tc\tsummary");
    for kind in games::all() {
        let info = kind.info();
        println!(
            "{}\t{}/{}\t{}\t{}\t{}\t{}",
            info.name,
            info.players[0],
            info.players[1],
            info.bench_depth,
            info.opening_book,
            info.match_tc,
            info.summary
        );
    }
    ExitCode::SUCCESS
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let cli = Cli::parse();
    match cli.command {
        None => {
            let input = BufReader::new(io::stdin());
            // The protocol's `bench` command is the bench tool, wired in here.
            let bench = |depth, hash_mb| bench::run(depth, hash_mb).lines();
            let code = protocol::run(input, io::stdout(), cli.game, bench);
            ExitCode::from(code as u8)
        }
        Some(Tool::Games) => list_games(),
        Some(Tool::Bench { depth, eval }) => {
            let settings = match eval.settings() {
                Ok(settings) => settings,
                Err(e) => return report(Err(e)),
            };
            for line in bench::run_with(depth, DEFAULT_HASH_MB, &settings).lines() {
                println!("{line}");
            }
            ExitCode::SUCCESS
        }
        Some(Tool::Train {
            data,
            out,
            hidden,
            activation,
            epochs,
            batch,
            lr,
            lr_drop,
            wdl,
            scale,
            validation,
            threads,
            seed,
            checkpoints,
        }) => {
            let settings = TrainSettings {
                hidden,
                activation: Activation::from_name(&activation).unwrap_or_default(),
                epochs,
                batch,
                lr,
                lr_drop,
                wdl,
                scale,
                validation,
                threads,
                seed,
                checkpoints: checkpoints.map(Into::into),
                ..TrainSettings::default()
            };
            report(run_train(&data, &out, &settings))
        }
        Some(Tool::TreeStats {
            fen,
            moves,
            depth,
            stones,
            each,
            csv,
            plot,
            hash,
        }) => {
            let options = TreeStatsOptions {
                fen,
                moves,
                depth,
                stones,
                each,
                csv,
                plot,
                hash_mb: hash,
            };
            report(tree_stats::run_command(
                cli.game,
                &options,
                &mut io::stdout(),
            ))
        }
        Some(Tool::Solve {
            fen,
            moves,
            file,
            check,
            limit,
            nodes,
            hash,
            weak,
            threads,
        }) => {
            let options = SolveOptions {
                fen,
                moves,
                file,
                check,
                limit,
                nodes,
                hash_mb: hash,
                weak,
                threads,
            };
            let result =
                solve::run_command(cli.game, &options, &mut io::stdout(), &mut io::stderr());
            report(result)
        }
        Some(Tool::Match { args }) => run_match(&args, cli.game),
        Some(Tool::Tune {
            data,
            iterations,
            learning_rate,
            threads,
            regularization,
            holdout,
            out,
        }) => {
            if cli.game.name() != chess::INFO.name {
                return report(Err(format!(
                    "tune tunes the chess evaluation only, not {}",
                    cli.game
                )));
            }
            let settings = TuneSettings {
                iterations,
                learning_rate,
                threads,
                report_every: 50,
                regularization,
                holdout,
            };
            report(run_tune(&data, &settings, out.as_deref()))
        }
        Some(Tool::Datagen {
            games,
            first_game,
            nodes,
            threads,
            random_plies,
            format,
            seed,
            book,
            out,
            eval,
        }) => {
            if cli.game.name() != chess::INFO.name {
                return report(Err(format!("datagen plays chess only, not {}", cli.game)));
            }
            let net = match eval.chess_net() {
                Ok(net) => net,
                Err(e) => return report(Err(e)),
            };
            let options = DatagenOptions {
                games,
                first_game,
                nodes,
                threads,
                random_plies,
                format: if format == "bullet" {
                    DataFormat::Bullet
                } else {
                    DataFormat::Text
                },
                seed,
                hash_mb: 16,
                net,
            };
            report(run_datagen(&options, &book, &out))
        }
        Some(Tool::Data { action }) => report(run_data(action)),
        Some(Tool::Book {
            action: BookAction::Build { plies, out, hash },
        }) => {
            if cli.game.name() != games::connect4::INFO.name {
                return report(Err(format!(
                    "book build is for connect4 (its solver builds it), not {}",
                    cli.game
                )));
            }
            let options = games::connect4::book::BuildOptions {
                plies,
                out: out.into(),
                hash_mb: hash,
                command: std::env::args().collect::<Vec<_>>().join(" "),
            };
            let result = games::connect4::book::build(&options, &mut io::stderr());
            report(result.map(|count| println!("{count} positions")))
        }
        Some(Tool::Play {
            tc,
            depth,
            movetime,
            human,
            engine,
            proto,
        }) => run_play(cli.game, tc, depth, movetime, &human, engine, &proto),
        Some(Tool::Perft {
            depth,
            fen,
            moves,
            chess960,
        }) => {
            let options = PerftOptions {
                depth,
                fen,
                moves,
                chess960,
            };
            match perft::run_command(cli.game, &options) {
                Ok(lines) => {
                    for line in lines {
                        println!("{line}");
                    }
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::FAILURE
                }
            }
        }
    }
}

/// `cutoff match`: exit status 0 when the match ran to its end or SPRT decided, 130 after
/// Ctrl-C, 2 on a usage or start-up error.
fn run_match(args: &[String], game: GameKind) -> ExitCode {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    use cutoff::tools::matches;

    let config = match matches::config::parse_args(args, game) {
        Ok(config) => config,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let interrupt = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&interrupt);
    if let Err(e) = ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed)) {
        eprintln!("warning: Ctrl-C handler not installed: {e}");
    }
    match matches::run(&config, interrupt) {
        Ok(results) => {
            print!("{}", matches::summary(&results));
            if results.end == matches::MatchEnd::Interrupted {
                ExitCode::from(130)
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// `cutoff datagen`: reads the book, appends the positions to `out`.
fn run_datagen(options: &DatagenOptions, book: &str, out: &str) -> Result<(), String> {
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
    let summary = datagen::run(options, &book, &mut writer, &mut progress)?;
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

/// `cutoff train`: loads the records, trains, writes the net and reports each epoch.
fn run_train(data: &[String], out: &str, settings: &TrainSettings) -> Result<(), String> {
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
        records.extend(datagen::decode_bullet(&bytes));
        println!("{path}: {whole} positions");
    }
    println!(
        "training (768 -> {})x2 -> 1 {} on {} positions ({:.0}% held out), {} epochs, batch {}, lr {} (x{} from {:.0}% of the epochs), wdl {}, scale {}, {} threads, seed {}",
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
        .save(std::path::Path::new(out))
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

/// Reads `N` as (N, N) and `A-B` as (A, B).
fn parse_range(text: &str) -> Result<(usize, usize), String> {
    let number = |t: &str| {
        t.trim()
            .parse::<usize>()
            .map_err(|_| format!("expected N or A-B, got '{text}'"))
    };
    match text.split_once('-') {
        Some((a, b)) => {
            let (a, b) = (number(a)?, number(b)?);
            if a > b {
                return Err(format!("empty range '{text}'"));
            }
            Ok((a, b))
        }
        None => number(text).map(|n| (n, n)),
    }
}

/// `cutoff tune`: tunes from the built-in weights, writes the result.
fn run_tune(data: &str, settings: &TuneSettings, out: Option<&str>) -> Result<(), String> {
    use cutoff::games::chess::weights::WEIGHTS;

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

/// Exit status of a tool: errors go to stderr.
fn report(result: Result<(), String>) -> ExitCode {
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `cutoff play`: exit status 0 when the game was played (whatever its end), 2 on a usage
/// or start-up error.
fn run_play(
    game: GameKind,
    tc: Option<String>,
    depth: Option<u32>,
    movetime: Option<u64>,
    human: &str,
    engine: Option<String>,
    proto: &str,
) -> ExitCode {
    use cutoff::protocol::dialect::Dialect;
    use cutoff::search::Player;
    use cutoff::tools::matches::{config::parse_tc, engine::EngineConfig};
    use cutoff::tools::play::{self, PlayConfig};

    let mut limits = match tc.as_deref().map(parse_tc).transpose() {
        Ok(limits) => limits.unwrap_or_default(),
        Err(e) => {
            eprintln!("error: --tc: {e}");
            return ExitCode::from(2);
        }
    };
    limits.depth = depth;
    limits.movetime_ms = movetime;
    if tc.is_none() && depth.is_none() && movetime.is_none() {
        limits.movetime_ms = Some(1000);
    }
    let (cmd, args) = match engine {
        Some(line) => {
            let mut words = line.split_whitespace().map(str::to_string);
            let Some(cmd) = words.next() else {
                eprintln!("error: --engine is empty");
                return ExitCode::from(2);
            };
            (cmd, words.collect())
        }
        None => match std::env::current_exe() {
            Ok(exe) => (
                exe.to_string_lossy().into_owned(),
                vec!["--game".to_string(), game.name().to_string()],
            ),
            Err(e) => {
                eprintln!("error: cannot find this program: {e}");
                return ExitCode::from(2);
            }
        },
    };
    let name = std::path::Path::new(&cmd)
        .file_name()
        .map_or(cmd.clone(), |n| n.to_string_lossy().into_owned());
    let config = PlayConfig {
        game,
        human: if human == "second" {
            Player::Second
        } else {
            Player::First
        },
        engine: EngineConfig {
            name,
            cmd,
            args,
            dir: None,
            proto: Dialect::from_name(proto).unwrap_or(Dialect::Ugi),
            options: Vec::new(),
            limits,
        },
    };
    match play::run(&config, Box::new(io::stdin().lock())) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
