//! The stack of accumulators of a game's positions, from the root of a search to the
//! current one, brought up to date lazily: a move only records the features it changes
//! ([`Delta`]), and a position's accumulator is computed when it is evaluated, from its last
//! computed ancestor's, so that positions never evaluated cost no update. Each
//! perspective's half is brought up to date on its own: a move that changes how a
//! perspective sees the whole board (a king crossing into another king bucket or mirror
//! half) refreshes that half from scratch at once ([`NnueState::refresh`]), and the other
//! half stays lazy.

use std::sync::Arc;

use arrayvec::ArrayVec;

use super::{add, Network};

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
        self.plies.push(Ply {
            delta,
            computed: [false; 2],
        });
        let needed = self.plies.len() * 2 * self.net.hidden;
        if self.stack.len() < needed {
            self.stack.resize(needed, 0);
        }
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
        let delta = &self.plies[ply].delta;
        let range = half * hidden..(half + 1) * hidden;
        let rows = |list: &ArrayVec<[u16; 2], N>| {
            let mut rows: ArrayVec<&[i16], N> = ArrayVec::new();
            for features in list {
                rows.push(self.net.row(usize::from(features[half])));
            }
            rows
        };
        apply(
            &parent[range.clone()],
            &mut child[range],
            &rows(&delta.added),
            &rows(&delta.removed),
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

/// `child = parent + Σ added - Σ removed`, in one pass for the usual shapes (iterators
/// rather than indices, so that no bounds check stops the vectoriser).
#[inline]
fn apply(parent: &[i16], child: &mut [i16], added: &[&[i16]], removed: &[&[i16]]) {
    match (added, removed) {
        ([a], [r]) => {
            for (((c, &p), &a), &r) in child.iter_mut().zip(parent).zip(*a).zip(*r) {
                *c = p.wrapping_add(a).wrapping_sub(r);
            }
        }
        ([a], [r1, r2]) => {
            for ((((c, &p), &a), &r1), &r2) in
                child.iter_mut().zip(parent).zip(*a).zip(*r1).zip(*r2)
            {
                *c = p.wrapping_add(a).wrapping_sub(r1).wrapping_sub(r2);
            }
        }
        _ => {
            child.copy_from_slice(parent);
            for row in added {
                add(child, row);
            }
            for row in removed {
                for (c, &w) in child.iter_mut().zip(*row) {
                    *c = c.wrapping_sub(w);
                }
            }
        }
    }
}
