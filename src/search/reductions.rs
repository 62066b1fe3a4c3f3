//! Late move reductions: how many plies shallower a late quiet move is searched first.
//!
//! The base reduction grows with `ln(depth) * ln(move number)` (the later the move and the
//! deeper the node, the less likely the move is to matter); [`LateMoveReductions::plies`]
//! adjusts it for the node and the move. Reductions are kept in 1/1024 plies until the end
//! so that the adjustments add up before rounding.

use super::params::SearchParams;

/// One ply in the fixed-point unit of the table.
const PLY: i32 = 1024;
/// Largest depth and move number the table distinguishes (larger ones use the last row).
const TABLE_SIZE: usize = 64;
/// History (butterfly plus continuation) worth one ply less (or more) reduction.
const HISTORY_PER_PLY: i32 = 8_192;

/// What the reduction of one move depends on besides depth and move number.
#[derive(Copy, Clone, Debug, Default)]
pub struct ReductionContext {
    /// The node is on the principal variation.
    pub pv_node: bool,
    /// The node is expected to fail high.
    pub cut_node: bool,
    /// The static evaluation is better than two plies before.
    pub improving: bool,
    /// The move gives check.
    pub gives_check: bool,
    /// The move's butterfly plus continuation history.
    pub history: i32,
}

/// The table of base reductions by depth and move number, built once per searcher.
pub struct LateMoveReductions {
    table: Box<[[i32; TABLE_SIZE]; TABLE_SIZE]>,
}

impl LateMoveReductions {
    /// The base table: `params.lmr_base + ln(depth) * ln(move number) /
    /// params.lmr_divisor` plies.
    pub fn new(params: &SearchParams) -> LateMoveReductions {
        let mut table = Box::new([[0; TABLE_SIZE]; TABLE_SIZE]);
        for (depth, row) in table.iter_mut().enumerate().skip(1) {
            for (number, cell) in row.iter_mut().enumerate().skip(1) {
                let ln_product = (depth as f64).ln() * (number as f64).ln();
                let plies = params.lmr_base + ln_product / params.lmr_divisor;
                *cell = (plies * f64::from(PLY)) as i32;
            }
        }
        LateMoveReductions { table }
    }

    /// The reduction, in whole plies, of the `move_number`-th move (from 1) at remaining
    /// `depth`: less on the principal variation, for checks and for moves with good
    /// history; more in expected cut nodes and when the position is not improving. Never
    /// negative and never so large that the reduced search drops below one ply.
    pub fn plies(&self, depth: i32, move_number: usize, context: ReductionContext) -> i32 {
        let row = (depth.max(0) as usize).min(TABLE_SIZE - 1);
        let column = move_number.min(TABLE_SIZE - 1);
        let mut r = self.table[row][column];
        if context.pv_node {
            r -= PLY;
        }
        if context.cut_node {
            r += PLY;
        }
        if !context.improving {
            r += PLY / 2;
        }
        if context.gives_check {
            r -= PLY;
        }
        r -= context.history * PLY / HISTORY_PER_PLY;
        (r / PLY).clamp(0, (depth - 2).max(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_moves_and_deeper_nodes_are_reduced_more() {
        let lmr = LateMoveReductions::new(&SearchParams::DEFAULT);
        let plain = ReductionContext {
            improving: true,
            ..ReductionContext::default()
        };
        // ln(1) = 0: the first move keeps the base 0.75, rounded down.
        assert_eq!(lmr.plies(3, 1, plain), 0);
        // 0.75 + ln(3) * ln(2) / 2.25 = 1.09.
        assert_eq!(lmr.plies(3, 2, plain), 1);
        assert!(lmr.plies(10, 30, plain) > lmr.plies(10, 4, plain));
        assert!(lmr.plies(20, 10, plain) > lmr.plies(5, 10, plain));
        // ln(20) * ln(40) / 2.25 + 0.75 = 5.66.
        assert_eq!(lmr.plies(20, 40, plain), 5);
    }

    #[test]
    fn adjustments_move_the_reduction_the_right_way() {
        let lmr = LateMoveReductions::new(&SearchParams::DEFAULT);
        let base = ReductionContext {
            improving: true,
            ..ReductionContext::default()
        };
        let r = lmr.plies(16, 20, base);
        let with = |context: ReductionContext| lmr.plies(16, 20, context);
        assert_eq!(
            with(ReductionContext {
                pv_node: true,
                ..base
            }),
            r - 1
        );
        assert_eq!(
            with(ReductionContext {
                cut_node: true,
                ..base
            }),
            r + 1
        );
        assert_eq!(
            with(ReductionContext {
                gives_check: true,
                ..base
            }),
            r - 1
        );
        assert!(
            with(ReductionContext {
                history: 20_000,
                ..base
            }) < r
        );
        assert!(
            with(ReductionContext {
                history: -20_000,
                ..base
            }) > r
        );
    }

    #[test]
    fn the_reduced_search_keeps_at_least_one_ply() {
        let lmr = LateMoveReductions::new(&SearchParams::DEFAULT);
        let worst = ReductionContext {
            cut_node: true,
            history: -1_000_000,
            ..ReductionContext::default()
        };
        for depth in 0..70 {
            for number in 1..300 {
                let r = lmr.plies(depth, number, worst);
                assert!(
                    r >= 0 && (r == 0 || depth - 1 - r >= 1),
                    "{depth} {number} {r}"
                );
            }
        }
    }
}
