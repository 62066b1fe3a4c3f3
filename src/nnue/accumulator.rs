//! The stack of accumulators of a game's positions, from the root of a search to the
//! current one, brought up to date lazily: a move only records the features it changes
//! ([`Delta`]), and a position's accumulator is computed when it is evaluated, from its last
//! computed ancestor's, so that positions never evaluated cost no update. Each
//! perspective's half is brought up to date on its own: a move that changes how a
//! perspective sees the whole board (a king crossing into another king bucket or mirror
//! half) refreshes that half from scratch at once ([`NnueState::refresh`]), and the other
//! half stays lazy. A position evaluated once and never searched further (a leaf) need
//! not store its accumulator: [`NnueState::evaluate_lazily`] computes it in a buffer.
//!
//! A move's rows are applied in one fused pass (`apply`: each block of values loaded
//! once, every row added or removed, stored once), compiled twice: for the target's
//! baseline and for AVX2, picked at run time.

use std::sync::Arc;

use arrayvec::ArrayVec;

use super::{Network, MAX_HIDDEN};

/// The features a move adds and removes, each as its index in perspective 0 and in
/// perspective 1; at most `N` of each.
#[derive(Clone, Debug, Default)]
pub struct Delta<const N: usize> {
    /// Features switched on: `[perspective 0, perspective 1]`.
    pub added: ArrayVec<[u16; 2], N>,
    /// Features switched off.
    pub removed: ArrayVec<[u16; 2], N>,
}

/// A network with a stack of accumulators, one per position from the root to the current
/// one: perspective 0's half then perspective 1's, `2 N` values each, in one preallocated
/// vector. `N` bounds the features one move adds or removes.
#[derive(Debug)]
pub struct NnueState<const N: usize> {
    net: Arc<Network>,
    /// The accumulators, `2 N` values per position on the stack (never shrunk: the slots
    /// above the current position are stale).
    stack: Vec<i16>,
    /// One per position on the stack, the root first: what the move into it changed and
    /// which halves of its accumulator are computed (the root's always are).
    plies: Vec<Ply<N>>,
}

/// A position on the accumulator stack.
#[derive(Clone, Debug, Default)]
struct Ply<const N: usize> {
    /// The features the move into it changed (none for the root and null moves).
    delta: Delta<N>,
    /// Whether each perspective's half of its accumulator is up to date.
    computed: [bool; 2],
}

impl<const N: usize> Clone for NnueState<N> {
    fn clone(&self) -> Self {
        let live = &self.stack[..self.plies.len() * 2 * self.net.hidden];
        NnueState::with_stack(Arc::clone(&self.net), live, &self.plies)
    }
}

/// Accumulators kept ready without reallocating (like the board stack).
const STACK_RESERVE: usize = 1024;

impl<const N: usize> NnueState<N> {
    /// The state of a position whose active features per perspective `active` lists: one
    /// freshly computed accumulator.
    pub fn new<I: IntoIterator<Item = usize>>(
        net: Arc<Network>,
        active: impl Fn(usize) -> I,
    ) -> NnueState<N> {
        let hidden = net.hidden;
        let root = Ply {
            delta: Delta::default(),
            computed: [true; 2],
        };
        let mut state = NnueState::with_stack(net, &[], &[root]);
        state.stack.resize(2 * hidden, 0);
        let (first, second) = state.stack.split_at_mut(hidden);
        state.net.refresh_from(first, active(0));
        state.net.refresh_from(second, active(1));
        state
    }

    /// A state holding `stack` and `plies`, with room reserved for [`STACK_RESERVE`] more.
    fn with_stack(net: Arc<Network>, stack: &[i16], plies: &[Ply<N>]) -> NnueState<N> {
        let mut reserved = Vec::with_capacity(stack.len() + STACK_RESERVE * 2 * net.hidden);
        reserved.extend_from_slice(stack);
        let mut reserved_plies = Vec::with_capacity(plies.len() + STACK_RESERVE);
        reserved_plies.extend_from_slice(plies);
        NnueState {
            net,
            stack: reserved,
            plies: reserved_plies,
        }
    }

    /// The network.
    pub fn network(&self) -> &Arc<Network> {
        &self.net
    }

    /// The current accumulator (perspective 0's half, then 1's), if it is computed: after
    /// [`NnueState::update`] or [`NnueState::evaluate`].
    pub fn current(&self) -> Option<&[i16]> {
        let ply = self.plies.len() - 1;
        (self.plies[ply].computed == [true; 2]).then(|| self.slot(ply))
    }

    /// Number of positions on the stack, the root included.
    pub fn positions(&self) -> usize {
        self.plies.len()
    }

    /// Number of positions at the top of the stack whose accumulators wait to be computed.
    pub fn pending(&self) -> usize {
        self.plies
            .iter()
            .rev()
            .take_while(|ply| ply.computed != [true; 2])
            .count()
    }

    /// The accumulator slot of `ply` (stale unless that ply is computed).
    fn slot(&self, ply: usize) -> &[i16] {
        let width = 2 * self.net.hidden;
        &self.stack[ply * width..(ply + 1) * width]
    }

    /// Records a move by the features it changes; its accumulator is computed when needed.
    /// A null move changes none (`Delta::default()`).
    pub fn push(&mut self, delta: Delta<N>) {
        self.push_with(|slot| *slot = delta);
    }

    /// [`NnueState::push`] with the delta written in place by `fill` (given an empty one):
    /// no copy of the delta's arrays on the way to the stack.
    #[inline]
    pub fn push_with(&mut self, fill: impl FnOnce(&mut Delta<N>)) {
        self.plies.push(Ply::default());
        let last = self.plies.len() - 1;
        fill(&mut self.plies[last].delta);
        let needed = self.plies.len() * 2 * self.net.hidden;
        if self.stack.len() < needed {
            self.stack.resize(needed, 0);
        }
    }

    /// The delta of the move into the current position, for a game that finds the
    /// features a move changes while making it (after [`NnueState::push_with`]); its
    /// accumulator must not be computed yet. The root's delta is never read.
    #[inline]
    pub fn last_delta_mut(&mut self) -> &mut Delta<N> {
        let last = self.plies.len() - 1;
        debug_assert!(last == 0 || self.plies[last].computed == [false; 2]);
        &mut self.plies[last].delta
    }

    /// Computes `perspective`'s half of the current accumulator from scratch, from its
    /// `active` features (after a move that changes how the perspective sees every piece:
    /// the move's delta is then not used for that half).
    pub fn refresh(&mut self, perspective: usize, active: impl IntoIterator<Item = usize>) {
        let ply = self.plies.len() - 1;
        let hidden = self.net.hidden;
        let start = (2 * ply + perspective) * hidden;
        self.net
            .refresh_from(&mut self.stack[start..start + hidden], active);
        self.plies[ply].computed[perspective] = true;
    }

    /// Drops the current position (unmake); the root's stays.
    pub fn pop(&mut self) {
        if self.plies.len() > 1 {
            self.plies.pop();
        }
    }

    /// Computes the current accumulator, each half from its last computed ancestor's.
    pub fn update(&mut self) {
        let last = self.plies.len() - 1;
        for half in 0..2 {
            let mut first = last;
            while !self.plies[first].computed[half] {
                first -= 1;
            }
            for ply in first + 1..=last {
                self.compute(ply, half);
            }
        }
    }

    /// Computes `half` of the accumulator of `ply` from its parent's (which must be
    /// computed).
    fn compute(&mut self, ply: usize, half: usize) {
        let hidden = self.net.hidden;
        let width = 2 * hidden;
        let (parent, child) = self.stack.split_at_mut(ply * width);
        let parent = &parent[(ply - 1) * width..];
        let range = half * hidden..(half + 1) * hidden;
        let mut rows = Rows::new();
        rows.fill(&self.net, &self.plies[ply].delta, half);
        apply(
            &parent[range.clone()],
            &mut child[range],
            &rows.added,
            &rows.removed,
        );
        self.plies[ply].computed[half] = true;
    }

    /// The evaluation of the current position for the side to move (perspective
    /// `side_to_move`) by the output head of `bucket` (the game's choice for the position,
    /// 0 for a net of one bucket), its accumulator brought up to date first.
    pub fn evaluate(&mut self, side_to_move: usize, bucket: usize) -> i32 {
        self.update();
        self.output(self.slot(self.plies.len() - 1), side_to_move, bucket)
    }

    /// The evaluation of the current position for `side_to_move` by the head of `bucket`
    /// if its accumulator is computed.
    pub fn evaluate_computed(&self, side_to_move: usize, bucket: usize) -> Option<i32> {
        self.current()
            .map(|accumulator| self.output(accumulator, side_to_move, bucket))
    }

    /// The evaluation of the current position for `side_to_move` by the head of `bucket`,
    /// without storing anything: from the current accumulator if it is computed, else
    /// from its last computed ancestors' with the pending moves applied in a buffer on the
    /// stack (as [`NnueState::evaluate`] would compute it, so the same value; for a
    /// leaf evaluated once, this costs what an update does, not a refresh).
    pub fn evaluate_lazily(&self, side_to_move: usize, bucket: usize) -> i32 {
        self.evaluate_lazily_at(self.plies.len() - 1, side_to_move, bucket)
    }

    /// [`NnueState::evaluate_lazily`] for the position `back` plies before the current
    /// one (`None` when the stack does not reach that far).
    pub fn evaluate_lazily_back(
        &self,
        back: usize,
        side_to_move: usize,
        bucket: usize,
    ) -> Option<i32> {
        let last = (self.plies.len() - 1).checked_sub(back)?;
        Some(self.evaluate_lazily_at(last, side_to_move, bucket))
    }

    /// [`NnueState::evaluate_lazily`] for the position of ply `last` of the stack.
    fn evaluate_lazily_at(&self, last: usize, side_to_move: usize, bucket: usize) -> i32 {
        if self.plies[last].computed == [true; 2] {
            return self.output(self.slot(last), side_to_move, bucket);
        }
        let hidden = self.net.hidden;
        let mut out = [0i16; 2 * MAX_HIDDEN];
        let mut spare = [0i16; MAX_HIDDEN];
        let mut rows = Rows::new();
        for half in 0..2 {
            let mut first = last;
            while !self.plies[first].computed[half] {
                first -= 1;
            }
            let range = half * hidden..(half + 1) * hidden;
            let target = &mut out[range.clone()];
            let mut source = &self.slot(first)[range];
            if first == last {
                target.copy_from_slice(source);
            }
            for ply in first + 1..=last {
                if ply > first + 1 {
                    spare[..hidden].copy_from_slice(target);
                    source = &spare[..hidden];
                }
                rows.fill(&self.net, &self.plies[ply].delta, half);
                apply(source, target, &rows.added, &rows.removed);
            }
        }
        self.output(&out[..2 * hidden], side_to_move, bucket)
    }

    /// The net's output for `accumulator` (perspective 0's half, then 1's).
    fn output(&self, accumulator: &[i16], side_to_move: usize, bucket: usize) -> i32 {
        let (first, second) = accumulator.split_at(self.net.hidden);
        if side_to_move == 0 {
            self.net.output(first, second, bucket)
        } else {
            self.net.output(second, first, bucket)
        }
    }
}

/// The rows of one delta's features in one perspective, added and removed: filled in
/// place ([`Rows::fill`]), as a returned pair of lists (a kilobyte each for gomoku's
/// deltas) was copied out at every update.
struct Rows<'a, const N: usize> {
    added: ArrayVec<&'a [i16], N>,
    removed: ArrayVec<&'a [i16], N>,
}

impl<'a, const N: usize> Rows<'a, N> {
    /// No rows.
    #[inline]
    fn new() -> Rows<'a, N> {
        Rows {
            added: ArrayVec::new(),
            removed: ArrayVec::new(),
        }
    }

    /// The rows of `net` that `delta` adds and removes in perspective `half`, replacing
    /// the lists' contents.
    #[inline]
    fn fill(&mut self, net: &'a Network, delta: &Delta<N>, half: usize) {
        let row = |features: &[u16; 2]| net.row(usize::from(features[half]));
        self.added.clear();
        self.added.extend(delta.added.iter().map(row));
        self.removed.clear();
        self.removed.extend(delta.removed.iter().map(row));
    }
}

/// Values of the accumulator kept in registers at once by [`apply`]: 64 `i16`s, eight
/// SSE2 registers or four AVX2 ones.
const BLOCK: usize = 64;

/// `child = parent + Σ added - Σ removed` (wrapping `i16` arithmetic), with AVX2 when the
/// CPU has it (detected at run time), else with the portable code: both compute the same
/// values, only the width of the vectors the compiler picks differs.
#[inline]
pub(crate) fn apply(parent: &[i16], child: &mut [i16], added: &[&[i16]], removed: &[&[i16]]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2, the only requirement of `apply_avx2`.
        unsafe { apply_avx2(parent, child, added, removed) };
        return;
    }
    apply_portable(parent, child, added, removed);
}

/// [`apply_portable`] compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn apply_avx2(parent: &[i16], child: &mut [i16], added: &[&[i16]], removed: &[&[i16]]) {
    apply_portable(parent, child, added, removed);
}

/// `child = parent + Σ added - Σ removed` in one pass over memory (Stockfish's
/// multi-update): each block of [`BLOCK`] values is loaded once, takes every row, and is
/// stored once, instead of one pass over the whole accumulator per row. Iterators and
/// fixed-size blocks, so that no bounds check stops the vectoriser. Any length (the
/// values past the last whole block one at a time).
#[inline(always)]
pub(crate) fn apply_portable(
    parent: &[i16],
    child: &mut [i16],
    added: &[&[i16]],
    removed: &[&[i16]],
) {
    let whole = parent.len() / BLOCK * BLOCK;
    let blocks = child[..whole]
        .chunks_exact_mut(BLOCK)
        .zip(parent[..whole].chunks_exact(BLOCK));
    for (index, (out, from)) in blocks.enumerate() {
        let range = index * BLOCK..(index + 1) * BLOCK;
        let mut block = [0i16; BLOCK];
        block.copy_from_slice(from);
        for row in added {
            for (value, &weight) in block.iter_mut().zip(&row[range.clone()]) {
                *value = value.wrapping_add(weight);
            }
        }
        for row in removed {
            for (value, &weight) in block.iter_mut().zip(&row[range.clone()]) {
                *value = value.wrapping_sub(weight);
            }
        }
        out.copy_from_slice(&block);
    }
    for i in whole..parent.len() {
        let plus = added
            .iter()
            .fold(parent[i], |v, row| v.wrapping_add(row[i]));
        child[i] = removed.iter().fold(plus, |v, row| v.wrapping_sub(row[i]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix;

    /// `count` rows of `len` random weights (the full `i16` range: sums wrap).
    fn random_rows(rng: &mut SplitMix, count: usize, len: usize) -> Vec<Vec<i16>> {
        (0..count)
            .map(|_| (0..len).map(|_| rng.next_u64() as i16).collect())
            .collect()
    }

    #[test]
    fn the_fused_update_is_the_sum_of_its_rows_with_or_without_avx2() {
        let mut rng = SplitMix::new(11);
        for len in [1, 3, 63, 64, 65, 128, 200, 256, 1024] {
            for (adds, removes) in [(0, 0), (1, 0), (1, 1), (1, 2), (9, 9), (29, 29), (3, 17)] {
                let parent: Vec<i16> = (0..len).map(|_| rng.next_u64() as i16).collect();
                let added = random_rows(&mut rng, adds, len);
                let removed = random_rows(&mut rng, removes, len);
                let added: Vec<&[i16]> = added.iter().map(Vec::as_slice).collect();
                let removed: Vec<&[i16]> = removed.iter().map(Vec::as_slice).collect();
                let expected: Vec<i16> = (0..len)
                    .map(|i| {
                        let plus = added.iter().fold(parent[i], |v, r| v.wrapping_add(r[i]));
                        removed.iter().fold(plus, |v, r| v.wrapping_sub(r[i]))
                    })
                    .collect();
                let mut dispatched = vec![0; len];
                apply(&parent, &mut dispatched, &added, &removed);
                assert_eq!(dispatched, expected, "len {len}, {adds} + {removes} rows");
                let mut portable = vec![0; len];
                apply_portable(&parent, &mut portable, &added, &removed);
                assert_eq!(portable, expected, "len {len}, {adds} + {removes} rows");
            }
        }
    }
}
