//! Pattern (n-tuple) inputs: one input per state of a small window of cells, the way
//! Othello's n-tuple networks and the strongest Ataxx nets see the board.
//!
//! # Indices
//!
//! A game gives the windows as a table ([`Patterns`], e.g. every 2x2 square of a board by
//! [`Patterns::rectangles`]) and the number `s` of states a cell can be in from a
//! perspective (own, other, empty...). A window `w` of `k` cells whose cells are in states
//! `state_0 .. state_{k-1}` (the table's order) is the one active input
//! `w · s^k + Σ state_i · s^i` of that window, so a set of `W` windows has `W · s^k` inputs
//! and exactly `W` active ones in each perspective. A game may put the pattern inputs at an
//! offset inside a larger set (beside per-cell inputs, say).
//!
//! # Incremental updates
//!
//! A move that changes some cells changes the inputs of the windows that contain them and
//! no other: [`Patterns::windows_of`] gives those windows (a bit each) from the changed
//! cells (a bit each) by a table built once with the geometry, and
//! [`Patterns::push_changes`] records in a [`Delta`] each such window's input before the
//! move as removed and after it as added. Boards of at most 64 cells and at most 64
//! windows; everything is computed at compile time (`const fn`), nothing allocates.

use super::Delta;

/// `TERNARY[m] = Σ 3^i` over the bits `i` of `m`: a set of cells of one state read in
/// base 3 ([`Patterns::planes_index`]).
const TERNARY: [u16; 256] = {
    let mut table = [0u16; 256];
    let mut m = 0;
    while m < 256 {
        let (mut value, mut power, mut i) = (0, 1, 0);
        while i < 8 {
            if m >> i & 1 == 1 {
                value += power;
            }
            power *= 3;
            i += 1;
        }
        table[m] = value;
        m += 1;
    }
    table
};

/// The windows of a pattern feature set: `W` windows of `K` cells each on a board of at
/// most 64 cells, and `states` states a cell can be in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Patterns<const K: usize, const W: usize> {
    /// The cells of each window, in the order of the index's powers.
    windows: [[u8; K]; W],
    /// For each cell, the windows that contain it (bit `w` for window `w`).
    containing: [u64; 64],
    /// States a cell can be in.
    states: usize,
    /// `states^K`: the inputs of one window.
    per_window: usize,
}

impl<const K: usize, const W: usize> Patterns<K, W> {
    /// The patterns of the given windows, cells in `0..64`, with `states` states a cell
    /// (at least 2). Panics (at compile time in a `const`) on a cell off the board, more
    /// than 64 windows, or more than `u16` inputs in all.
    pub const fn new(windows: [[u8; K]; W], states: usize) -> Self {
        assert!(W <= 64, "at most 64 windows");
        assert!(states >= 2, "at least 2 states a cell");
        let mut containing = [0u64; 64];
        let mut w = 0;
        while w < W {
            let mut i = 0;
            while i < K {
                let cell = windows[w][i] as usize;
                assert!(cell < 64, "a cell off a 64-cell board");
                containing[cell] |= 1 << w;
                i += 1;
            }
            w += 1;
        }
        let mut per_window = 1;
        let mut i = 0;
        while i < K {
            per_window *= states;
            i += 1;
        }
        assert!(
            W * per_window <= u16::MAX as usize,
            "more inputs than u16 indices"
        );
        Patterns {
            windows,
            containing,
            states,
            per_window,
        }
    }

    /// Every `window_width x window_height` rectangle of a `width x height` board whose
    /// cells are numbered `width · row + column`, row by row from the first (`W` must be
    /// `(width - window_width + 1) · (height - window_height + 1)` and `K` the window's
    /// area); each window's cells row by row.
    pub const fn rectangles(
        (width, height): (usize, usize),
        (window_width, window_height): (usize, usize),
        states: usize,
    ) -> Self {
        assert!(window_width * window_height == K, "K is the window's area");
        assert!(window_width <= width && window_height <= height);
        let across = width - window_width + 1;
        assert!(
            across * (height - window_height + 1) == W,
            "W is the window count"
        );
        let mut windows = [[0u8; K]; W];
        let mut w = 0;
        while w < W {
            let (row, column) = (w / across, w % across);
            let mut i = 0;
            while i < K {
                let cell = width * (row + i / window_width) + column + i % window_width;
                windows[w][i] = cell as u8;
                i += 1;
            }
            w += 1;
        }
        Patterns::new(windows, states)
    }

    /// The inputs of the set: `W · states^K`.
    pub const fn inputs(&self) -> usize {
        W * self.per_window
    }

    /// The cells of window `w`.
    pub fn window(&self, w: usize) -> &[u8; K] {
        &self.windows[w]
    }

    /// The input of window `w` when its cells are in the states `state` gives (each below
    /// `states`): `w · states^K + Σ state(cell_i) · states^i`.
    #[inline]
    pub fn index(&self, w: usize, state: impl Fn(usize) -> usize) -> usize {
        let mut index = 0;
        for &cell in self.windows[w].iter().rev() {
            index = index * self.states + state(usize::from(cell));
        }
        w * self.per_window + index
    }

    /// The active inputs of a board whose cells are in the states `state` gives, one per
    /// window in window order, each plus `offset`.
    pub fn active<'a>(
        &'a self,
        offset: usize,
        state: impl Fn(usize) -> usize + 'a,
    ) -> impl Iterator<Item = usize> + 'a {
        (0..W).map(move |w| offset + self.index(w, &state))
    }

    /// The windows (bit `w` for window `w`) that contain one of `cells` (bit `c` for
    /// cell `c`).
    #[inline]
    pub fn windows_of(&self, mut cells: u64) -> u64 {
        let mut windows = 0;
        while cells != 0 {
            windows |= self.containing[cells.trailing_zeros() as usize];
            cells &= cells - 1;
        }
        windows
    }

    /// The input of window `w` for cells of 3 states given as two bitboards: 1 where
    /// `own` has the cell, 2 where `other` has it, 0 where neither has (the two never
    /// both): what [`Patterns::index`] gives for `own_bit + 2 · other_bit`, by gathering
    /// each bitboard's bits of the window and two lookups instead of a sum of powers.
    /// The other perspective's input is the same call with `own` and `other` swapped.
    #[inline]
    pub fn planes_index(&self, w: usize, own: u64, other: u64) -> usize {
        debug_assert!(self.states == 3 && K <= 8, "3 states, at most 8 cells");
        let (mut own_bits, mut other_bits) = (0, 0);
        for (i, &cell) in self.windows[w].iter().enumerate() {
            own_bits |= ((own >> cell) & 1) << i;
            other_bits |= ((other >> cell) & 1) << i;
        }
        let ternary = |bits: u64| usize::from(TERNARY[bits as usize & 0xff]);
        w * self.per_window + ternary(own_bits) + 2 * ternary(other_bits)
    }

    /// [`Patterns::push_changes`] for 3-state cells given as bitboards, `stones[p]` the
    /// cells of perspective `p`'s own state, before and after the move
    /// ([`Patterns::planes_index`]): the same records, faster.
    #[inline]
    pub fn push_plane_changes<const N: usize>(
        &self,
        mut windows: u64,
        offset: usize,
        (before, after): ([u64; 2], [u64; 2]),
        delta: &mut Delta<N>,
    ) {
        while windows != 0 {
            let w = windows.trailing_zeros() as usize;
            windows &= windows - 1;
            let input = |stones: [u64; 2], p: usize| {
                (offset + self.planes_index(w, stones[p], stones[1 - p])) as u16
            };
            let old = [input(before, 0), input(before, 1)];
            let new = [input(after, 0), input(after, 1)];
            if old != new {
                delta.removed.push(old);
                delta.added.push(new);
            }
        }
    }

    /// Records in `delta` what a move does to the inputs of `windows` (bits, from
    /// [`Patterns::windows_of`] of the cells it changes): each window's input before it,
    /// `before(perspective, cell)` giving the states, is removed and the one after it,
    /// by `after`, added, each plus `offset`, in both perspectives. A window whose input
    /// is the same in both perspectives after as before is skipped. Panics if `delta`
    /// has no room (the game's bound on the changes of a move is wrong).
    #[inline]
    pub fn push_changes<const N: usize>(
        &self,
        mut windows: u64,
        offset: usize,
        before: impl Fn(usize, usize) -> usize,
        after: impl Fn(usize, usize) -> usize,
        delta: &mut Delta<N>,
    ) {
        while windows != 0 {
            let w = windows.trailing_zeros() as usize;
            windows &= windows - 1;
            let old = [0, 1].map(|p| (offset + self.index(w, |cell| before(p, cell))) as u16);
            let new = [0, 1].map(|p| (offset + self.index(w, |cell| after(p, cell))) as u16);
            if old != new {
                delta.removed.push(old);
                delta.added.push(new);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 2x2 windows of a 3x3 board, 3 states a cell.
    const SMALL: Patterns<4, 4> = Patterns::rectangles((3, 3), (2, 2), 3);

    #[test]
    fn rectangles_cover_the_board_row_by_row() {
        assert_eq!(SMALL.inputs(), 4 * 81);
        assert_eq!(SMALL.window(0), &[0, 1, 3, 4]);
        assert_eq!(SMALL.window(1), &[1, 2, 4, 5]);
        assert_eq!(SMALL.window(3), &[4, 5, 7, 8]);
        // The centre is in every window, a corner in one, an edge's middle in two.
        assert_eq!(SMALL.windows_of(1 << 4), 0b1111);
        assert_eq!(SMALL.windows_of(1 << 8), 0b1000);
        assert_eq!(SMALL.windows_of(1 << 1), 0b0011);
        assert_eq!(SMALL.windows_of(1 << 0 | 1 << 8), 0b1001);
        let seven: Patterns<4, 36> = Patterns::rectangles((7, 7), (2, 2), 3);
        assert_eq!(seven.inputs(), 2916);
        assert_eq!(seven.window(35), &[40, 41, 47, 48]);
        assert_eq!(seven.windows_of(1 << 24).count_ones(), 4);
        let three: Patterns<9, 25> = Patterns::rectangles((7, 7), (3, 3), 2);
        assert_eq!(three.window(24), &[32, 33, 34, 39, 40, 41, 46, 47, 48]);
        assert_eq!(three.windows_of(1 << 24).count_ones(), 9);
    }

    #[test]
    fn the_index_is_the_window_then_the_states_in_base_s() {
        // Window 1 (cells 1, 2, 4, 5) with states 2, 0, 1, 2: 81 + 2 + 0 + 9 + 54.
        let state = |cell: usize| [0, 2, 0, 0, 1, 2, 0, 0, 0][cell];
        assert_eq!(SMALL.index(1, state), 81 + 2 + 9 + 54);
        assert_eq!(SMALL.index(0, |_| 0), 0);
        assert_eq!(SMALL.index(3, |_| 2), 4 * 81 - 1);
        let active: Vec<usize> = SMALL.active(100, state).collect();
        assert_eq!(active.len(), 4);
        assert_eq!(active[1], 100 + 81 + 2 + 9 + 54);
    }

    #[test]
    fn plane_indices_and_changes_match_the_generic_ones() {
        let seven: Patterns<4, 36> = Patterns::rectangles((7, 7), (2, 2), 3);
        let mut rng = crate::rng::SplitMix::new(7);
        for _ in 0..200 {
            let own = rng.next_u64() & ((1 << 49) - 1);
            let other = rng.next_u64() & !own & ((1 << 49) - 1);
            let state = |cell: usize| ((own >> cell) & 1 | ((other >> cell) & 1) << 1) as usize;
            for w in 0..36 {
                assert_eq!(seven.planes_index(w, own, other), seven.index(w, state));
            }
            // A change of a few cells: both ways record the same delta.
            let cells = rng.next_u64() & rng.next_u64() & ((1 << 49) - 1);
            let after = [own ^ (cells & !other), other & !cells];
            let stones = |bits: [u64; 2], p: usize, cell: usize| {
                ((bits[p] >> cell) & 1 | ((bits[1 - p] >> cell) & 1) << 1) as usize
            };
            let windows = seven.windows_of(cells);
            let mut generic: Delta<64> = Delta::default();
            seven.push_changes(
                windows,
                3,
                |p, cell| stones([own, other], p, cell),
                |p, cell| stones(after, p, cell),
                &mut generic,
            );
            let mut planes: Delta<64> = Delta::default();
            seven.push_plane_changes(windows, 3, ([own, other], after), &mut planes);
            assert_eq!(planes.added, generic.added);
            assert_eq!(planes.removed, generic.removed);
            assert!(cells == 0 || !planes.added.is_empty() || after == [own, other]);
        }
    }

    #[test]
    fn a_change_replaces_the_inputs_of_the_windows_that_hold_it() {
        let before = |perspective: usize, cell: usize| usize::from(cell == 4) * (1 + perspective);
        // Cell 8 becomes perspective 0's (state 1), perspective 1's other (state 2).
        let after = |perspective: usize, cell: usize| match cell {
            8 => 1 + perspective,
            _ => before(perspective, cell),
        };
        let mut delta: Delta<8> = Delta::default();
        SMALL.push_changes(SMALL.windows_of(1 << 8), 0, before, after, &mut delta);
        assert_eq!(delta.removed.len(), 1);
        let old = SMALL.index(3, |cell| before(0, cell));
        let new = SMALL.index(3, |cell| after(0, cell));
        assert_eq!(new - old, 27);
        assert_eq!(delta.removed[0][0] as usize, old);
        assert_eq!(delta.added[0][0] as usize, new);
        assert_eq!(
            delta.added[0][1] as usize,
            SMALL.index(3, |cell| after(1, cell))
        );
        // Unchanged windows are skipped.
        let mut none: Delta<8> = Delta::default();
        SMALL.push_changes(0b1111, 5, before, before, &mut none);
        assert!(none.added.is_empty() && none.removed.is_empty());
    }
}
