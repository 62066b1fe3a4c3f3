//! `cutoff datagen`: any game's self-play ([`selfplay::run`] for the game's
//! [`TrainingSupport`]), with a progress bar on stderr and the totals on stdout.

use std::io;

use clap::Args;

use crate::selfplay::{self, DatagenOptions, DatagenSummary};
use crate::trained::{with_training, TrainingTask};
use crate::TrainingSupport;
use cutoff::games::GameKind;
use cutoff::tools::EvalArgs;

/// `cutoff datagen`: self-play writing labelled positions.
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
    /// Reads the book, plays the games of `game` and appends their positions to `out`,
    /// reporting progress on stderr and the totals on stdout.
    pub fn run(&self, game: GameKind) -> Result<(), String> {
        with_training(game, "datagen", self)?
    }
}

impl TrainingTask for &DatagenArgs {
    type Output = Result<(), String>;

    fn run_as<G: TrainingSupport>(self, game: GameKind) -> Result<(), String> {
        if self.options.games == 0 {
            return Err("--games must be at least 1".to_string());
        }
        if self
            .options
            .first_game
            .checked_add(self.options.games)
            .is_none()
        {
            return Err(format!(
                "--first-game {} is too large to number {} more games",
                self.options.first_game, self.options.games
            ));
        }
        let book = match &self.book {
            Some(book) => book.clone(),
            None => default_book(game.info().tools.opening_book),
        };
        let book = book.as_str();
        let options = DatagenOptions {
            net: self.eval.net(game)?,
            ..self.options.clone()
        };
        run_datagen::<G>(&options, book, &self.out, game)
    }
}

/// The game's own book (a path in the repository): from the working directory when it is
/// there, else from the source tree the binary was built from.
fn default_book(relative: &str) -> String {
    if std::path::Path::new(relative).exists() {
        return relative.to_string();
    }
    let built_from = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(relative);
    if built_from.exists() {
        built_from.display().to_string()
    } else {
        relative.to_string()
    }
}

/// Reads the book, appends the positions of `game`'s self-play (as `G`) to `out`, reports.
fn run_datagen<G: TrainingSupport>(
    options: &DatagenOptions,
    book: &str,
    out: &str,
    game: GameKind,
) -> Result<(), String> {
    let text =
        std::fs::read_to_string(book).map_err(|e| format!("cannot read book {book}: {e}"))?;
    let book = selfplay::read_book(&text);
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
    // The results are the first player's: `white` in chess, `x` in Ataxx.
    let first = game.info().players[0];
    let started = std::time::Instant::now();
    let mut progress = |summary: &DatagenSummary| {
        bar.set_position(summary.games as u64);
        let rate = summary.positions as f64 / started.elapsed().as_secs_f64().max(1e-3);
        let message = format!(
            "{} positions, {rate:.0}/s, {}",
            summary.positions,
            results(first, summary)
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
    let summary = selfplay::run::<G>(options, &book, &mut writer, &mut progress)?;
    bar.finish();
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "{} games (numbers {} to {}), {} positions written to {out} in {seconds:.0} s ({:.0} positions/s); {}",
        summary.games,
        options.first_game,
        options.first_game + summary.games.saturating_sub(1),
        summary.positions,
        summary.positions as f64 / seconds.max(1e-3),
        results(first, &summary)
    );
    Ok(())
}

/// The games' results from the first player's view, named `first`: `white +W =D -L`.
fn results(first: &str, summary: &DatagenSummary) -> String {
    format!(
        "{first} +{} ={} -{}",
        summary.first_wins, summary.draws, summary.second_wins
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_named_by_the_first_player() {
        let summary = DatagenSummary {
            games: 6,
            positions: 100,
            first_wins: 3,
            draws: 1,
            second_wins: 2,
        };
        assert_eq!(results("white", &summary), "white +3 =1 -2");
        assert_eq!(results("x", &summary), "x +3 =1 -2");
    }
}
