//! The root driver of a search ([`Searcher::run`], Steps 1 to 5): the root moves, the
//! exact answer where the search may play exactly, iterative deepening with the lines of
//! MultiPV and the iterations shared with the other threads, and the reports.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::super::events::{SearchEvent, SearchInfo, SearchResult};
use super::super::exact::{exact_answer, ExactChoice, ExactPlay};
use super::super::features::SearchStats;
use super::super::game::{Game, MoveList};
use super::super::limits::{deadlines, IterationProgress, Limits};
use super::super::pool::{CompletedIteration, SharedIterations};
use super::super::score::{is_mate, outcome_score, tablebase_score, Score, MATE, MAX_PLY};
use super::Searcher;

impl<G: Game> Searcher<G> {
    /// Searches `root` within `limits`, reporting each iteration and the final result to
    /// `report`. `searchmoves`, when not empty, restricts the root moves. The threads are
    /// the [`ThreadPool`](crate::search::ThreadPool)'s: it links the searcher first.
    ///
    /// `exact`: the pool decided this search plays exactly ([`ExactPlay::decide`]); the
    /// game's book or solver then answers instead of the search when it can
    /// ([`exact_answer`]).
    pub(in crate::search) fn run(
        &mut self,
        root: &G,
        limits: &Limits,
        searchmoves: &[G::Move],
        exact: Option<ExactPlay<'_, G>>,
        report: &mut dyn FnMut(SearchEvent<G::Move>),
    ) -> SearchResult<G::Move> {
        // Step 1. Reset the per-search state.
        self.begin(root, limits);

        // Step 2. The root moves; without any the game is over and is answered at once.
        // A position drawn by a claimable rule (chess repetition, fifty moves) still gets
        // a move: the GUI may not have claimed the draw.
        self.collect_root_moves(root, searchmoves);
        if self.state.root_moves.is_empty() {
            return self.finish_without_moves(root, report);
        }

        // Step 2a. Where the game's endgame tables know the root, only the moves that keep
        // their best result are searched, and the nodes below ask no tables.
        self.rank_by_tablebase(root);

        // Step 2b. Under a clock, the game's book or its exact solver may answer outright.
        if let Some(play) = exact {
            let (moves, control) = (&mut self.state.root_moves, &self.links.control);
            if let Some((choice, nodes)) =
                exact_answer(play, root, moves, control, &mut self.state.deadlines)
            {
                return self.finish_exact(root, limits, &choice, nodes, report);
            }
        }

        // Step 3. Iterative deepening. Threads of a pool share single-line iterations: a
        // thread overtaken by another adopts that thread's iteration and goes deeper.
        let lines = self.settings.multipv.clamp(1, self.state.root_moves.len());
        let pool = self.links.pool.clone().filter(|_| lines == 1);
        let completed = self.iterative_deepening(root, limits, lines, pool.as_deref(), report);

        // Step 4. Infinite and ponder searches wait for `stop` (or `ponderhit`).
        self.wait_while_pondering(limits);

        // Step 5. The best move of the deepest completed iteration (or the best guess).
        self.finish(completed, pool.as_deref(), report)
    }

    /// Step 1 of [`Searcher::run`]: resets the per-search state.
    fn begin(&mut self, root: &G, limits: &Limits) {
        let planned_moves = self.params().planned_moves;
        let state = &mut self.state;
        state.started = Instant::now();
        state.nodes = 0;
        state.stats = SearchStats::default();
        self.links.published.store(0, Ordering::Relaxed);
        state.aborted = false;
        state.overtaken = false;
        state.node_limit = limits.nodes;
        state.skill_nodes = self.settings.skill.node_budget(root.hash());
        state.misjudgement = self.settings.skill.misjudgement_amplitude();
        state.progress = IterationProgress::default();
        state.root_move_nodes.clear();
        state.null_move_min_ply = 0;
        state.tablebase_root = None;
        let moves_left = root.remaining_plies_bound().map(|plies| plies.div_ceil(2));
        state.deadlines = deadlines(
            limits,
            self.settings.move_overhead,
            moves_left,
            planned_moves,
        );
        state.pruning = self.settings.features.pruning_of(root);
        self.tables.new_search();
        self.links.tt.new_search();
    }

    /// Step 2 of [`Searcher::run`]: the legal root moves (those of `searchmoves` only, when
    /// it is not empty), ordered by the game's hints.
    fn collect_root_moves(&mut self, root: &G, searchmoves: &[G::Move]) {
        let root_moves = &mut self.state.root_moves;
        root_moves.clear();
        let mut all = MoveList::new();
        if searchmoves.is_empty() {
            root.generate_search_moves(&mut all);
        } else {
            root.generate_moves(&mut all);
        }
        for mv in all {
            if searchmoves.is_empty() || searchmoves.contains(&mv) {
                root_moves.push(mv);
            }
        }
        let by_hint = |mv: &G::Move| std::cmp::Reverse(root.move_hint(*mv));
        root_moves.sort_by_key(by_hint);
    }

    /// Step 2a of [`Searcher::run`]: the root moves the game's endgame tables keep, and the
    /// result they give the root.
    fn rank_by_tablebase(&mut self, root: &G) {
        let mut kept = self.state.root_moves.clone();
        if let Some((outcome, probes)) = root.tablebase_root(&mut kept) {
            if !kept.is_empty() {
                self.state.root_moves = kept;
                self.state.tablebase_root = Some(outcome);
            }
            self.links.control.add_tb_hits(probes);
        }
    }

    /// The score reported for a root line that searched to `score`: the endgame tables'
    /// result where they ranked the root and the search proved no mate.
    fn reported_score(&self, score: Score) -> Score {
        match self.state.tablebase_root {
            Some(outcome) if !is_mate(score) => tablebase_score(outcome, 0),
            _ => score,
        }
    }

    /// Step 3 of [`Searcher::run`]: iterative deepening from the settings' start depth to
    /// the limits' depth, `lines` best lines per depth. With a `pool`, an iteration
    /// another thread completes first is adopted, and depths the pool has completed are
    /// skipped. Returns the deepest iteration completed (or adopted), if any.
    fn iterative_deepening(
        &mut self,
        root: &G,
        limits: &Limits,
        lines: usize,
        pool: Option<&SharedIterations<G::Move>>,
        report: &mut dyn FnMut(SearchEvent<G::Move>),
    ) -> Option<CompletedIteration<G::Move>> {
        let mut game = root.clone();
        let max_depth = limits
            .depth
            .unwrap_or(MAX_PLY as u32 - 1)
            .clamp(1, MAX_PLY as u32 - 1);
        let mut completed = None;
        let mut previous_scores: Vec<Score> = Vec::new();
        let mut depth = self.settings.start_depth.clamp(1, max_depth);
        // Helpers that start deeper stay that much ahead of the pool's deepest iteration.
        let skew = depth - 1;
        while depth <= max_depth {
            if completed.is_some() && !self.within_skill_budget(limits) {
                break;
            }
            self.state.seldepth = 0;
            self.state.iteration_depth = if pool.is_some() { depth } else { u32::MAX };
            self.state.root_depth = depth;
            let (iteration, adopted) =
                match self.search_lines(&mut game, depth, lines, &previous_scores) {
                    Some(results) => {
                        let (iteration, scores) =
                            self.complete_iteration(depth, results, pool, report);
                        previous_scores = scores;
                        (iteration, false)
                    }
                    None => {
                        // Another thread completed this depth (or a deeper one) first?
                        let Some(iteration) = self.adopt_overtaking(pool, report) else {
                            break;
                        };
                        previous_scores = vec![iteration.score];
                        (iteration, true)
                    }
                };
            let best = iteration.pv.first().map(|&mv| G::encode_move(mv));
            self.state.progress.record(best, iteration.score);
            let ends = self.iteration_ends_search(root, limits, iteration.depth, &previous_scores);
            depth = match pool {
                _ if adopted => iteration.depth + 1 + skew,
                // Go straight past depths another thread has completed meanwhile.
                Some(pool) => (depth + 1).max(pool.depth() + 1 + skew),
                None => depth + 1,
            };
            completed = Some(iteration);
            if ends {
                break;
            }
        }
        self.state.root_from = 0;
        completed
    }

    /// A playing level's node budget, before an iteration of
    /// [`Searcher::iterative_deepening`] after the first completed one: `false` when the
    /// budget is spent; otherwise the iteration aborts where it would pass the budget (and
    /// is discarded), so a level's move comes from the deepest iteration that fits.
    fn within_skill_budget(&mut self, limits: &Limits) -> bool {
        let Some(budget) = self.state.skill_nodes else {
            return true;
        };
        if self.state.nodes >= budget {
            return false;
        }
        self.state.node_limit = Some(limits.nodes.map_or(budget, |nodes| nodes.min(budget)));
        true
    }

    /// One depth of [`Searcher::iterative_deepening`]: searches the `lines` best root
    /// moves, each line without the moves of the better ones (MultiPV), each inside an
    /// aspiration window around its score of the previous depth. Returns the lines (score
    /// and PV) best first, with their moves at the front of the root moves in that order;
    /// `None` when the search was aborted or overtaken.
    fn search_lines(
        &mut self,
        game: &mut G,
        depth: u32,
        lines: usize,
        previous_scores: &[Score],
    ) -> Option<Vec<(Score, Vec<G::Move>)>> {
        let mut results: Vec<(Score, Vec<G::Move>)> = Vec::with_capacity(lines);
        for line in 0..lines {
            self.state.root_from = line;
            let previous = previous_scores.get(line).copied();
            let score = self.aspiration(game, depth, previous)?;
            let pv: Vec<G::Move> = self.pv[0].to_vec();
            let root_moves = &mut self.state.root_moves;
            if let Some(offset) = pv
                .first()
                .and_then(|best| root_moves[line..].iter().position(|m| m == best))
            {
                root_moves.swap(line, line + offset);
            }
            results.push((score, pv));
        }
        if lines > 1 {
            // Keep the lines (and their root moves) sorted best first.
            let mut order: Vec<usize> = (0..lines).collect();
            order.sort_by_key(|&i| std::cmp::Reverse(results[i].0));
            let root_moves = &mut self.state.root_moves;
            let moves: Vec<G::Move> = order.iter().map(|&i| root_moves[i]).collect();
            root_moves[..lines].copy_from_slice(&moves);
            results = order.iter().map(|&i| results[i].clone()).collect();
        }
        Some(results)
    }

    /// Reports the lines of a completed depth and shares the best one with the pool.
    /// Returns the best line as the completed iteration, and the scores of every line.
    fn complete_iteration(
        &mut self,
        depth: u32,
        mut results: Vec<(Score, Vec<G::Move>)>,
        pool: Option<&SharedIterations<G::Move>>,
        report: &mut dyn FnMut(SearchEvent<G::Move>),
    ) -> (CompletedIteration<G::Move>, Vec<Score>) {
        for (index, (score, pv)) in results.iter().enumerate() {
            report(SearchEvent::Iteration(SearchInfo {
                depth,
                seldepth: self.state.seldepth as u32,
                multipv: index as u32 + 1,
                score: self.reported_score(*score),
                nodes: self.total_nodes(),
                elapsed: self.state.started.elapsed(),
                hashfull: self.links.tt.hashfull(),
                tbhits: self.links.control.tb_hits(),
                pv: pv.clone(),
            }));
        }
        let scores = results.iter().map(|r| r.0).collect();
        let (score, pv) = results.swap_remove(0);
        let iteration = CompletedIteration {
            depth,
            seldepth: self.state.seldepth as u32,
            score: self.reported_score(score),
            pv,
        };
        if let Some(pool) = pool {
            pool.publish(iteration.clone());
        }
        (iteration, scores)
    }

    /// After an unfinished depth: when the search was overtaken (not stopped), the pool's
    /// deepest iteration, adopted as this thread's own.
    fn adopt_overtaking(
        &mut self,
        pool: Option<&SharedIterations<G::Move>>,
        report: &mut dyn FnMut(SearchEvent<G::Move>),
    ) -> Option<CompletedIteration<G::Move>> {
        let iteration = match pool {
            Some(pool) if self.state.overtaken && !self.state.aborted => pool.deepest(),
            _ => None,
        }?;
        self.state.overtaken = false;
        self.adopt(&iteration, report);
        Some(iteration)
    }

    /// Step 4 of [`Searcher::run`]: an infinite or ponder search that ended by itself
    /// waits for `stop` (or, pondering, for `ponderhit`).
    fn wait_while_pondering(&self, limits: &Limits) {
        if limits.ends_by_itself() {
            return;
        }
        let control = &self.links.control;
        while !control.is_stopped() && (limits.infinite || control.is_pondering()) {
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Step 5 of [`Searcher::run`]: the result from the deepest iteration completed by
    /// any thread (or, without one, the best guess), reported as `Finished`.
    fn finish(
        &mut self,
        mut completed: Option<CompletedIteration<G::Move>>,
        pool: Option<&SharedIterations<G::Move>>,
        report: &mut dyn FnMut(SearchEvent<G::Move>),
    ) -> SearchResult<G::Move> {
        if let Some(deeper) = pool
            .and_then(|pool| pool.deepest())
            .filter(|d| completed.as_ref().map_or(true, |c| d.depth > c.depth))
        {
            self.adopt(&deeper, report);
            completed = Some(deeper);
        }
        let (depth, score, pv) = match completed {
            Some(c) => (c.depth, c.score, c.pv),
            None => {
                let guess = self.pv[0]
                    .first()
                    .copied()
                    .unwrap_or(self.state.root_moves[0]);
                (0, 0, vec![guess])
            }
        };
        self.links
            .published
            .store(self.state.nodes, Ordering::Relaxed);
        let result = SearchResult {
            best: pv.first().copied(),
            ponder: pv.get(1).copied(),
            score,
            depth,
            nodes: self.total_nodes(),
            elapsed: self.state.started.elapsed(),
        };
        report(SearchEvent::Finished(result.clone()));
        result
    }

    /// Takes `iteration`, completed by another thread, as this thread's own: its best move
    /// goes first at the root, and it is reported.
    fn adopt(
        &mut self,
        iteration: &CompletedIteration<G::Move>,
        report: &mut dyn FnMut(SearchEvent<G::Move>),
    ) {
        if let Some(offset) = iteration
            .pv
            .first()
            .and_then(|best| self.state.root_moves.iter().position(|m| m == best))
        {
            self.state.root_moves.swap(0, offset);
        }
        report(SearchEvent::Iteration(SearchInfo {
            depth: iteration.depth,
            seldepth: iteration.seldepth,
            multipv: 1,
            score: iteration.score,
            nodes: self.total_nodes(),
            elapsed: self.state.started.elapsed(),
            hashfull: self.links.tt.hashfull(),
            tbhits: self.links.control.tb_hits(),
            pv: iteration.pv.clone(),
        }));
    }

    fn finish_without_moves(
        &mut self,
        root: &G,
        report: &mut dyn FnMut(SearchEvent<G::Move>),
    ) -> SearchResult<G::Move> {
        let score = match root.outcome() {
            Some(outcome) => outcome_score(outcome, 0),
            None if root.in_check() => -MATE,
            None => outcome_score(root.outcome_without_moves(), 0),
        };
        report(SearchEvent::Iteration(SearchInfo {
            depth: 0,
            seldepth: 0,
            multipv: 1,
            score,
            nodes: 0,
            elapsed: self.state.started.elapsed(),
            hashfull: self.links.tt.hashfull(),
            tbhits: self.links.control.tb_hits(),
            pv: Vec::new(),
        }));
        let result = SearchResult {
            best: None,
            ponder: None,
            score,
            depth: 0,
            nodes: 0,
            elapsed: self.state.started.elapsed(),
        };
        report(SearchEvent::Finished(result.clone()));
        result
    }

    /// Reports an exact (or book) answer as an iteration as deep as the game can last,
    /// waits while `infinite`, and reports the result.
    fn finish_exact(
        &mut self,
        root: &G,
        limits: &Limits,
        choice: &ExactChoice<G::Move>,
        nodes: u64,
        report: &mut dyn FnMut(SearchEvent<G::Move>),
    ) -> SearchResult<G::Move> {
        let depth = root.remaining_plies_bound().unwrap_or(1).max(1);
        report(SearchEvent::Iteration(SearchInfo {
            depth,
            seldepth: depth,
            multipv: 1,
            score: choice.score,
            nodes,
            elapsed: self.state.started.elapsed(),
            hashfull: self.links.tt.hashfull(),
            tbhits: self.links.control.tb_hits(),
            pv: vec![choice.mv],
        }));
        self.wait_while_pondering(limits);
        let result = SearchResult {
            best: Some(choice.mv),
            ponder: None,
            score: choice.score,
            depth,
            nodes,
            elapsed: self.state.started.elapsed(),
        };
        report(SearchEvent::Finished(result.clone()));
        result
    }
}
