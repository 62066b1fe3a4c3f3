//! `cutoff perft`: counts the leaves below each root move of a position given on the
//! command line, with the lines of the protocol's `perft` command. The counting itself is
//! rules code: [`crate::search::perft`].

use crate::games::setup::position_from;
use crate::games::{GameKind, GameVisitor, Registered, VariantSettings};
use crate::protocol::format::format_perft;
use crate::search::perft::PerftDivide;
use crate::search::Game;

/// What `cutoff perft` counts (its arguments).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct PerftOptions {
    /// Plies to count.
    // 0 counts as 1.
    pub depth: u32,
    /// Start from this position instead of the start position.
    #[arg(long)]
    pub fen: Option<String>,
    /// Moves to play first, space-separated, in the game's notation.
    #[arg(long, default_value = "")]
    pub moves: String,
    /// Chess960 castling notation and FENs (the game's `UCI_Chess960` option).
    #[arg(long)]
    pub chess960: bool,
}

impl PerftOptions {
    /// Runs `cutoff perft` for the game `kind` and prints its lines.
    pub fn run(&self, kind: GameKind) -> Result<(), String> {
        for line in run_command(kind, self)? {
            println!("{line}");
        }
        Ok(())
    }
}

/// Runs `cutoff perft` for the game `kind`: the output lines, or the error in the position.
pub fn run_command(kind: GameKind, options: &PerftOptions) -> Result<Vec<String>, String> {
    let mut settings = VariantSettings::default();
    if options.chess960 {
        let option = kind
            .info()
            .protocol
            .variant_options
            .iter()
            .find(|option| option.name == "UCI_Chess960")
            .ok_or_else(|| format!("--chess960: {kind} has no Chess960 variant"))?;
        settings.set(option, "true".to_string());
    }
    kind.visit(&settings, PerftCommand { options })
}

/// `cutoff perft` for the visited game.
struct PerftCommand<'a> {
    options: &'a PerftOptions,
}

impl GameVisitor for PerftCommand<'_> {
    type Output = Result<Vec<String>, String>;

    fn visit<G: Game>(self, game: Registered<G>) -> Self::Output {
        run_for::<G>(&game.variant, self.options)
    }
}

fn run_for<G: Game>(variant: &G::Variant, options: &PerftOptions) -> Result<Vec<String>, String> {
    // Errors read as those of the protocol's `position`.
    let root: G = position_from(
        variant,
        options.fen.as_deref(),
        options.moves.split_whitespace(),
    )
    .map_err(|e| e.to_string())?;
    Ok(format_perft(&PerftDivide::run(&root, options.depth)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn connect4() -> GameKind {
        crate::games::find("connect4").unwrap()
    }

    #[test]
    fn counts_from_a_position_and_reports_bad_moves() {
        let options = PerftOptions {
            depth: 2,
            moves: "4 4".to_string(),
            ..PerftOptions::default()
        };
        let lines = run_command(connect4(), &options).expect("a legal position");
        assert_eq!(lines.len(), 7 + 3);
        assert_eq!(lines[8], "Nodes searched: 49");
        let bad = PerftOptions {
            moves: "4 zz".to_string(),
            ..options
        };
        let error = run_command(connect4(), &bad).expect_err("an illegal move");
        assert!(
            error.ends_with("(move 2 of the position command)"),
            "{error}"
        );
    }
}
