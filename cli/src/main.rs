//! The `cutoff` command line: without a subcommand it speaks UCI/UGI on stdin/stdout, after
//! running its arguments as protocol lines (`cutoff uci quit`, OpenBench's
//! `cutoff "genfens 8 seed 5 book None" quit`); each
//! subcommand is a tool with its own arguments and `run`, which this file only dispatches:
//! the engine tools from the engine library (`cutoff::tools`), `match` and `play` from the
//! match crate (`cutoff_match`), `datagen`, `train`, `data` and `tune` from the training
//! library (`cutoff_training`).

use std::io::{self, BufRead, BufReader, Cursor, Read};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use cutoff::games::{self, GameKind};
use cutoff::protocol;
use cutoff::tools::{self, bench, book, perft, solve, tree_stats};
use cutoff_match::{cli as matches, play, pooled};
use cutoff_training::chess::cli::TuneArgs;
use cutoff_training::{
    data::DataArgs, datagen::DatagenArgs, gomoku::policy::TrainPolicyArgs, train::TrainArgs,
};

#[derive(Parser)]
#[command(
    name = "cutoff",
    version,
    about = "A game-playing engine speaking UCI, UGI, UAI and the Gomocup protocol"
)]
struct Cli {
    /// Game to play (`cutoff games` lists them).
    #[arg(long, default_value_t = games::default_game(), value_parser = parse_game, global = true,
          help = format!("Game to play: {}", games::names(", ")))]
    game: GameKind,
    /// The protocol spoken without a subcommand: `auto` chooses it by the first input line
    /// (a Gomocup `START`, `RECTSTART`, `INFO` or `ABOUT` selects Gomocup).
    #[arg(long, value_enum, default_value_t = protocol::Protocol::Auto)]
    protocol: protocol::Protocol,
    #[command(subcommand)]
    command: Option<Tool>,
    /// Protocol lines run in order before standard input is read (`cutoff uci quit`,
    /// `cutoff "go depth 5" quit`); the session ends at `quit` or the end of the input. A
    /// first word that names a tool runs the tool instead.
    #[arg(value_name = "LINE")]
    lines: Vec<String>,
}

#[derive(Subcommand)]
enum Tool {
    /// Lists the games: name, players, bench depth, opening book, SPRT time control and
    /// summary, one per line, tab-separated (`scripts/sprt.sh` reads it).
    Games,
    /// Fixed-depth search of fixed positions of every game; prints `Bench: N nodes M nps`.
    Bench(bench::BenchArgs),
    /// Counts leaf positions DEPTH plies deep, per root move.
    Perft(perft::PerftOptions),
    /// Plays engines against each other, refereed by cutoff's rules (fastchess-style
    /// arguments: `-engine cmd=./a name=a -engine cmd=./b -each tc=10+0.1 proto=ugi ...`).
    #[command(disable_help_flag = true)]
    Match(matches::MatchArgs),
    /// Pools several matches of one pairing (`-jsonout` results, logs or PGN files: a match
    /// played as several seeds or game pairs) and prints W/D/L, Elo with its 95% interval,
    /// the pentanomial counts, with `--elo0 --elo1` the SPRT, with `--json` the results.
    MatchStats(pooled::MatchStatsArgs),
    /// Compares minimax, alpha-beta, alpha-beta with ordering and PVS with a table:
    /// nodes, leaves, cut-offs, first-move cut-off rate and time.
    TreeStats(tree_stats::TreeStatsOptions),
    /// Exact value of a position and of every root move (or of every position of a file).
    Solve(solve::SolveOptions),
    /// Self-play at a fixed node count per move, appending the store's compressed games
    /// (`--format records`, chess's in viriformat) or the training positions as the
    /// trainer's records (`--format bullet`: bullet `ChessBoard` records for chess,
    /// `AtaxxBoard` for `--game ataxx`), each with the search score and the game result.
    Datagen(DatagenArgs),
    /// Texel tuning of the chess evaluation on `FEN;result` lines (from `data export`):
    /// fits the sigmoid scale K, minimises the squared error with Adam, writes the weights
    /// as Rust source.
    Tune(TuneArgs),
    /// Trains an NNUE network `(INPUTS -> N)x2 -> B` (B output buckets, 1 by default) of
    /// the game's feature set on bullet records (`ChessBoard` for chess, `AtaxxBoard` for
    /// `--game ataxx`; from `datagen --format bullet`, or bullet's tools) on the CPU;
    /// writes it in bullet's quantised layout (see nets/README.md).
    Train(TrainArgs),
    /// Fits gomoku's move-ordering tables (a score per cell code for the side to move and
    /// for the opponent) to the moves of datagen games (record files in game order);
    /// writes a policy file such as `nets/gomoku-policy.bin`.
    TrainPolicy(TrainPolicyArgs),
    /// Training records of the game (bullet `ChessBoard` for chess, `AtaxxBoard` for
    /// `--game ataxx`; 32 bytes a position): `data shuffle` interleaves files in a seeded
    /// random order, `data export` writes the store's training positions as `FEN;result`
    /// lines (for `tune`), `data convert` turns such lines into records (score 0: train
    /// them with `--wdl 1.0`).
    Data(DataArgs),
    /// Opening books built by the game's own solver (Connect Four: `book build`).
    Book(book::BookArgs),
    /// Plays a game against the engine in the terminal (type moves; undo, hint, quit).
    Play(play::PlayArgs),
    /// Tuning build only: the game's search constants as OpenBench's SPSA input, one a
    /// line (`Name, int, default, min, max, c_end, r_end`), read by `scripts/spsa.py`.
    #[cfg(feature = "tune")]
    SpsaParams,
}

fn parse_game(name: &str) -> Result<GameKind, String> {
    games::find(name)
        .ok_or_else(|| format!("unknown game '{name}' (known: {})", games::names(", ")))
}

/// Exit status of a tool: errors go to stderr and exit with status 1.
fn report(result: Result<(), String>) -> ExitCode {
    report_as(result.map(|()| ExitCode::SUCCESS), 1)
}

/// Exit status of a tool with statuses of its own: errors go to stderr and exit with
/// `failure`.
fn report_as(result: Result<ExitCode, String>, failure: u8) -> ExitCode {
    result.unwrap_or_else(|e| {
        eprintln!("error: {e}");
        ExitCode::from(failure)
    })
}

/// What the protocol reads: the command-line `lines`, one a line, then standard input.
fn protocol_input(lines: &[String]) -> impl BufRead + Send + 'static {
    let mut text = String::new();
    for line in lines {
        text.push_str(line);
        text.push('\n');
    }
    Cursor::new(text).chain(BufReader::new(io::stdin()))
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let cli = Cli::parse();
    let game = cli.game;
    match cli.command {
        None => {
            let input = protocol_input(&cli.lines);
            // The protocol's `bench` command is the bench tool, wired in here.
            let bench = |depth, hash_mb| bench::run(depth, hash_mb).lines();
            let code = protocol::run_protocol(input, io::stdout(), game, bench, cli.protocol);
            ExitCode::from(code as u8)
        }
        Some(Tool::Games) => {
            tools::list_games();
            ExitCode::SUCCESS
        }
        Some(Tool::Bench(args)) => report(args.run(game)),
        Some(Tool::Perft(args)) => report(args.run(game)),
        // Exit status 2 on a usage or start-up error, 130 after Ctrl-C.
        Some(Tool::Match(args)) => report_as(args.run(game), 2),
        Some(Tool::MatchStats(args)) => report(args.run()),
        Some(Tool::TreeStats(args)) => report(args.run(game)),
        Some(Tool::Solve(args)) => report(args.run(game)),
        Some(Tool::Datagen(args)) => report(args.run(game)),
        Some(Tool::Tune(args)) => report(args.run(game)),
        Some(Tool::Train(args)) => report(args.run(game)),
        Some(Tool::TrainPolicy(args)) => report(args.run(game)),
        Some(Tool::Data(args)) => report(args.run(game)),
        Some(Tool::Book(args)) => report(args.run(game)),
        // Exit status 0 when the game was played, whatever its end.
        Some(Tool::Play(args)) => report_as(args.run(game).map(|()| ExitCode::SUCCESS), 2),
        #[cfg(feature = "tune")]
        Some(Tool::SpsaParams) => {
            protocol::tuning::openbench_lines(game)
                .iter()
                .for_each(|line| println!("{line}"));
            ExitCode::SUCCESS
        }
    }
}
