//! The frame-rate estimator of document 004 section 4: render-target tiles (RTT) and planes (RTP),
//! the 64-entry RTP information table, learning and prediction modes and the prediction equations
//! `F = C_rtp · N_rtp`, `C_rtp = λ·C_cur + (1 − λ)·C_avg`.
//!
//! Choices the document leaves open (\[INTERP\], section 10.4 item 10-11): an *update* is one colour
//! quad written by CW to the tracked render target (the back buffer); the RTP closure rule is one
//! of the two of section 4 \[INTERP\] ([`Closure`]): a plane closes when the frame has written one
//! full render target's worth of quads (`Count`, the default) or when every tile has been updated
//! (`Bitmap`, a touched bitmap, then cleared); a partial RTP at the end of the frame is an entry
//! too; `N_rtp` is the table's plane-equivalents (tiles / tiles per plane, or updates / updates per
//! plane; an entry that accumulates several planes after the 64th counts for all of them); `λ` =
//! updates so far / learned updates per frame; `C_cur` as below (`C_avg` before the first plane
//! closes); relearning when the update count or the cycles of a completed frame differ from the
//! learned ones by more than `relearn_threshold` (the plane count itself is a small integer that
//! jumps with one late tile, so it is not compared).
//!
//! Why `Count` by default: a substitute frame need not write every tile of the back buffer (a
//! corner no random draw covers); under the bitmap rule such a frame never closes a plane, `N_rtp`
//! stays below 1 and `C_cur` is never measured, so the estimator only repeats the learned frame's
//! time. The count rule closes a plane every render target's worth of updates, at the same update
//! counts in every frame.
//!
//! `C_cur`, "the average cycles per RTP observed so far in this frame", has two readings:
//! - *plain* ([`Estimator::predict_cycles_plain`]): cycles of the planes closed so far / their
//!   number. Planes of one frame differ in cost (the first holds the shadow pass and everything
//!   else before the first colour update, post-processing planes are cheap), so early planes bias
//!   it even when the frame is an exact repeat of the learned one.
//! - *matched* ([`Estimator::predict_cycles`], the one used): the cycles the current frame took up
//!   to its latest update over the cycles the learned frame took for the same number of updates
//!   (the table's cumulative updates and cycles per plane, linear within a plane), times `C_avg`:
//!   the current frame's rate measured against the learned frame at equal work. A repeat of the
//!   learned frame is predicted exactly; a uniformly slower frame moves the prediction towards
//!   its true time as `λ` grows, as the plain reading does.

/// Entries of the RTP information table.
pub const TABLE_ENTRIES: usize = 64;
/// Bits per entry: three 32-bit fields plus a valid bit.
pub const ENTRY_BITS: usize = 97;

/// One RTP table entry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RtpEntry {
    /// Updates (colour quads) to the plane.
    pub updates: u32,
    /// Cycles taken to finish the plane.
    pub cycles: u32,
    /// Render-target tiles in the plane.
    pub tiles: u32,
}

/// What was learned from one frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Learned {
    /// Planes per frame, `N_rtp`.
    pub n_rtp: f64,
    /// Average cycles per plane, `C_avg`.
    pub c_avg: f64,
    /// Updates per frame.
    pub updates: f64,
}

/// When a render-target plane closes (section 4 \[INTERP\]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Closure {
    /// Once the plane's updates reach one full render target's worth of quads.
    Count,
    /// Once every tile has been updated (a touched bitmap).
    Bitmap,
}

/// Estimator mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Recording one full frame.
    Learning,
    /// Predicting from the learned values.
    Prediction,
}

/// The frame-rate estimator.
pub struct Estimator {
    tiles_x: usize,
    tile_px: usize,
    ntiles: usize,
    closure: Closure,
    plane_updates: u32,
    last_update: u64,
    touched: Vec<bool>,
    touched_count: usize,
    table: Vec<RtpEntry>,
    cur_updates: u32,
    frame_start: u64,
    plane_start: u64,
    frame_updates: u64,
    planes_closed: usize,
    learned: Option<Learned>,
    /// The learned frame's table (per-plane cycles for the matched `C_cur`).
    learned_table: Vec<RtpEntry>,
    mode: Mode,
    /// Relative difference of planes or updates that sends the estimator back to learning.
    pub relearn_threshold: f64,
    /// Frames after which the estimator went back to learning.
    pub relearns: u32,
}

impl Estimator {
    /// An estimator for a `width`×`height`-pixel render target with `tile_px`-pixel square tiles,
    /// closing planes by count ([`Closure::Count`]).
    pub fn new(width: usize, height: usize, tile_px: usize) -> Self {
        Self::with_closure(width, height, tile_px, Closure::Count)
    }

    /// The same with the given plane-closure rule.
    pub fn with_closure(width: usize, height: usize, tile_px: usize, closure: Closure) -> Self {
        let tiles_x = width.div_ceil(tile_px);
        let ntiles = tiles_x * height.div_ceil(tile_px);
        let q = crate::scene::QUAD_PX;
        let plane_updates = (width.div_ceil(q) * height.div_ceil(q)).max(1) as u32;
        Self {
            tiles_x,
            tile_px,
            ntiles,
            closure,
            plane_updates,
            last_update: 0,
            touched: vec![false; ntiles],
            touched_count: 0,
            table: Vec::with_capacity(TABLE_ENTRIES),
            cur_updates: 0,
            frame_start: 0,
            plane_start: 0,
            frame_updates: 0,
            planes_closed: 0,
            learned: None,
            learned_table: Vec::new(),
            mode: Mode::Learning,
            relearn_threshold: 0.10,
            relearns: 0,
        }
    }

    /// The current mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The learned values, if any.
    pub fn learned(&self) -> Option<Learned> {
        self.learned
    }

    /// Tiles per render-target plane.
    pub fn tiles(&self) -> usize {
        self.ntiles
    }

    /// Updates per plane under [`Closure::Count`] (quads of the render target).
    pub fn plane_updates(&self) -> u32 {
        self.plane_updates
    }

    /// The plane-equivalents of a table entry.
    fn planes_of(&self, e: &RtpEntry) -> f64 {
        match self.closure {
            Closure::Count => e.updates as f64 / self.plane_updates as f64,
            Closure::Bitmap => e.tiles as f64 / self.ntiles as f64,
        }
    }

    fn push_entry(&mut self, e: RtpEntry) {
        if self.table.len() < TABLE_ENTRIES {
            self.table.push(e);
        } else {
            let last = self.table.last_mut().expect("table is full");
            last.updates += e.updates;
            last.cycles += e.cycles;
            last.tiles += e.tiles;
        }
    }

    /// One update (a colour quad written) at pixel (`x`, `y`) of the tracked target, at cycle `now`.
    pub fn update(&mut self, x: usize, y: usize, now: u64) {
        let t = (y / self.tile_px) * self.tiles_x + x / self.tile_px;
        self.cur_updates += 1;
        self.frame_updates += 1;
        self.last_update = now;
        if !self.touched[t] {
            self.touched[t] = true;
            self.touched_count += 1;
        }
        let closed = match self.closure {
            Closure::Count => self.cur_updates >= self.plane_updates,
            Closure::Bitmap => self.touched_count == self.ntiles,
        };
        if closed {
            let e = RtpEntry {
                updates: self.cur_updates,
                cycles: (now - self.plane_start) as u32,
                tiles: self.touched_count as u32,
            };
            self.push_entry(e);
            self.planes_closed += 1;
            self.plane_start = now;
            self.cur_updates = 0;
            self.touched.iter_mut().for_each(|b| *b = false);
            self.touched_count = 0;
        }
    }

    /// Fraction of the frame rendered so far, λ (0 without learned data).
    pub fn lambda(&self) -> f64 {
        match self.learned {
            Some(l) if l.updates > 0.0 => (self.frame_updates as f64 / l.updates).clamp(0.0, 1.0),
            _ => 0.0,
        }
    }

    /// `F = N_rtp · (λ·C_cur + (1 − λ)·C_avg)` for a given `C_cur` (prediction mode only).
    fn predict_with(&self, c_cur: impl FnOnce(&Learned) -> f64) -> Option<f64> {
        let l = self.learned.filter(|_| self.mode == Mode::Prediction)?;
        let lambda = self.lambda();
        let c_cur = if self.planes_closed > 0 {
            c_cur(&l)
        } else {
            l.c_avg
        };
        Some((lambda * c_cur + (1.0 - lambda) * l.c_avg) * l.n_rtp)
    }

    /// The cycles the learned frame took for its first `u` updates: its table's cumulative
    /// (updates, cycles) per plane, linear within a plane, proportional beyond its last update.
    fn learned_cycles_at(&self, u: f64) -> f64 {
        let (mut cu, mut cc) = (0.0, 0.0);
        for e in &self.learned_table {
            let (nu, nc) = (cu + e.updates as f64, cc + e.cycles as f64);
            if u <= nu && e.updates > 0 {
                return cc + (u - cu) / e.updates as f64 * e.cycles as f64;
            }
            (cu, cc) = (nu, nc);
        }
        if cu > 0.0 {
            cc * u / cu
        } else {
            cc
        }
    }

    /// The predicted cycles of the current frame (prediction mode only), with the matched
    /// `C_cur`: `C_avg` × (cycles of this frame up to its latest update / the learned frame's
    /// cycles for the same number of updates).
    pub fn predict_cycles(&self) -> Option<f64> {
        self.predict_with(|l| {
            let learned = self.learned_cycles_at(self.frame_updates as f64);
            let now = (self.last_update - self.frame_start) as f64;
            if learned > 0.0 {
                l.c_avg * now / learned
            } else {
                l.c_avg
            }
        })
    }

    /// The predicted cycles of the current frame (prediction mode only), with the plain `C_cur`:
    /// the cycles of the planes closed so far over their number.
    pub fn predict_cycles_plain(&self) -> Option<f64> {
        self.predict_with(|_| {
            (self.plane_start - self.frame_start) as f64 / self.planes_closed as f64
        })
    }

    /// Ends the frame at cycle `now` (the present command): learns, or checks the learned values.
    pub fn end_frame(&mut self, now: u64) {
        if self.cur_updates > 0 || self.touched_count > 0 {
            let e = RtpEntry {
                updates: self.cur_updates,
                cycles: (now - self.plane_start) as u32,
                tiles: self.touched_count as u32,
            };
            self.push_entry(e);
        } else if let Some(last) = self.table.last_mut() {
            last.cycles += (now - self.plane_start) as u32;
        }
        let cycles: f64 = (now - self.frame_start) as f64;
        let n_rtp: f64 = self.table.iter().map(|e| self.planes_of(e)).sum();
        let seen = Learned {
            n_rtp,
            c_avg: if n_rtp > 0.0 { cycles / n_rtp } else { cycles },
            updates: self.frame_updates as f64,
        };
        match (self.mode, self.learned) {
            (Mode::Learning, _) => {
                self.learned = Some(seen);
                self.learned_table = self.table.clone();
                self.mode = Mode::Prediction;
            }
            (Mode::Prediction, Some(l)) => {
                let off = |a: f64, b: f64| (a - b).abs() > self.relearn_threshold * b.max(1.0);
                let cycles = |x: &Learned| x.n_rtp * x.c_avg;
                if off(seen.updates, l.updates) || off(cycles(&seen), cycles(&l)) {
                    self.learned = None;
                    self.mode = Mode::Learning;
                    self.relearns += 1;
                }
            }
            (Mode::Prediction, None) => self.mode = Mode::Learning,
        }
        self.table.clear();
        self.touched.iter_mut().for_each(|b| *b = false);
        self.touched_count = 0;
        self.cur_updates = 0;
        self.frame_updates = 0;
        self.planes_closed = 0;
        self.frame_start = now;
        self.plane_start = now;
        self.last_update = now;
    }

    /// Discards everything and starts learning with the frame that begins at cycle `now`.
    pub fn restart(&mut self, now: u64) {
        let (t, r) = (self.relearn_threshold, self.relearns);
        let tile_px = self.tile_px;
        *self = Estimator {
            ntiles: self.ntiles,
            tiles_x: self.tiles_x,
            tile_px,
            closure: self.closure,
            plane_updates: self.plane_updates,
            last_update: now,
            touched: vec![false; self.ntiles],
            touched_count: 0,
            table: Vec::with_capacity(TABLE_ENTRIES),
            cur_updates: 0,
            frame_start: now,
            plane_start: now,
            frame_updates: 0,
            planes_closed: 0,
            learned: None,
            learned_table: Vec::new(),
            mode: Mode::Learning,
            relearn_threshold: t,
            relearns: r,
        };
    }

    /// Storage of the RTP table in bytes (64 × 97 bits, section 6).
    pub fn table_bytes() -> usize {
        TABLE_ENTRIES * ENTRY_BITS / 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Renders a frame of `planes` full-screen planes of 4×4 tiles (8-pixel tiles on 32×32), each
    /// plane `per_plane` cycles, one update per tile every `per_plane/16` cycles. Returns the
    /// predictions sampled at every update.
    fn frame(e: &mut Estimator, start: u64, planes: u64, per_plane: u64) -> (u64, Vec<f64>) {
        let step = per_plane / 16;
        let mut now = start;
        let mut preds = Vec::new();
        for _ in 0..planes {
            for t in 0..16usize {
                now += step;
                e.update((t % 4) * 8, (t / 4) * 8, now);
                preds.extend(e.predict_cycles());
            }
        }
        e.end_frame(now);
        (now, preds)
    }

    #[test]
    fn exact_on_a_repeated_uniform_frame() {
        let mut e = Estimator::with_closure(32, 32, 8, Closure::Bitmap);
        let (t, p) = frame(&mut e, 0, 5, 1600);
        assert!(p.is_empty(), "no prediction while learning");
        assert_eq!(e.mode(), Mode::Prediction);
        let l = e.learned().unwrap();
        assert_eq!(l.n_rtp, 5.0);
        assert_eq!(l.c_avg, 1600.0);
        let (_, p) = frame(&mut e, t, 5, 1600);
        assert_eq!(p.len(), 80);
        assert!(p.iter().all(|&c| (c - 8000.0).abs() < 1e-6), "{p:?}");
    }

    /// A frame whose first plane costs `first` cycles (a depth-only pass before the first colour
    /// update, as a shadow pass) and the next `planes - 1` planes `rest` cycles each. Returns
    /// the (matched, plain) predictions sampled at every update.
    fn uneven(
        e: &mut Estimator,
        start: u64,
        planes: u64,
        first: u64,
        rest: u64,
    ) -> (u64, Vec<(f64, f64)>) {
        let mut now = start;
        let mut preds = Vec::new();
        for p in 0..planes {
            let step = if p == 0 { first } else { rest } / 16;
            for t in 0..16usize {
                now += step;
                e.update((t % 4) * 8, (t / 4) * 8, now);
                if let (Some(a), Some(b)) = (e.predict_cycles(), e.predict_cycles_plain()) {
                    preds.push((a, b));
                }
            }
        }
        e.end_frame(now);
        (now, preds)
    }

    #[test]
    fn a_repeated_uneven_frame_is_predicted_exactly_by_the_matched_rate_only() {
        let mut e = Estimator::with_closure(32, 32, 8, Closure::Bitmap);
        let (t, _) = uneven(&mut e, 0, 8, 6400, 800);
        let (_, p) = uneven(&mut e, t, 8, 6400, 800);
        let truth = 6400.0 + 7.0 * 800.0;
        assert!(p.iter().all(|&(m, _)| (m - truth).abs() < 1e-6), "{p:?}");
        // The plain rate takes the expensive first plane for the current rate and
        // over-predicts the frame's cycles (under-predicts FPS) in between.
        let worst = p.iter().map(|&(_, q)| q / truth - 1.0).fold(0.0, f64::max);
        assert!(worst > 0.2, "plain reading biased: {worst}");
    }

    #[test]
    fn matched_rate_follows_a_uniformly_slower_uneven_frame() {
        let mut e = Estimator::with_closure(32, 32, 8, Closure::Bitmap);
        let (t, _) = uneven(&mut e, 0, 8, 6400, 800);
        let (_, p) = uneven(&mut e, t, 8, 9600, 1200);
        let (learned, truth) = (12000.0, 18000.0);
        let m: Vec<f64> = p.iter().map(|x| x.0).collect();
        assert!(m.windows(2).all(|w| w[1] >= w[0] - 1e-6), "rises: {m:?}");
        assert!(m
            .iter()
            .all(|&c| (learned - 1e-6..=truth + 1e-6).contains(&c)));
        assert!((m[m.len() - 1] - truth).abs() < 1e-6);
    }

    #[test]
    fn prediction_moves_towards_the_current_rate() {
        let mut e = Estimator::with_closure(32, 32, 8, Closure::Bitmap);
        let (t, _) = frame(&mut e, 0, 4, 1600);
        // The next frame renders twice as slowly: predictions rise from the learned 6400 cycles
        // towards the true 12800 as λ grows.
        let (_, p) = frame(&mut e, t, 4, 3200);
        assert!(p[0] < p[p.len() - 1]);
        assert!((p[p.len() - 1] - 12800.0).abs() < 1e-6);
        assert!(p.iter().all(|&c| (6400.0..=12800.0 + 1e-6).contains(&c)));
    }

    #[test]
    fn relearns_when_the_frame_changes() {
        let mut e = Estimator::with_closure(32, 32, 8, Closure::Bitmap);
        let (t, _) = frame(&mut e, 0, 4, 1600);
        let (t, _) = frame(&mut e, t, 4, 1700);
        assert_eq!(
            (e.mode(), e.relearns),
            (Mode::Prediction, 0),
            "6% slower: kept"
        );
        let (t, _) = frame(&mut e, t, 6, 1600);
        assert_eq!((e.mode(), e.relearns), (Mode::Learning, 1));
        frame(&mut e, t, 6, 1600);
        assert_eq!(e.learned().unwrap().n_rtp, 6.0);
    }

    /// A frame of `planes` planes' worth of updates under the count rule on a 32×32 target (256
    /// quads per plane), sweeping the quads of 15 of the 16 tiles only (tile 15 is never
    /// written), `step` cycles per update. Returns the predictions sampled at every update.
    fn partial(e: &mut Estimator, start: u64, planes: u64, step: u64) -> (u64, Vec<f64>) {
        let mut now = start;
        let mut preds = Vec::new();
        let quads: Vec<(usize, usize)> = (0..256)
            .map(|i| ((i % 16) * 2, (i / 16) * 2))
            .filter(|&(x, y)| !(x >= 24 && y >= 24))
            .collect();
        for i in 0..planes * 256 {
            now += step;
            let (x, y) = quads[i as usize % quads.len()];
            e.update(x, y, now);
            preds.extend(e.predict_cycles());
        }
        e.end_frame(now);
        (now, preds)
    }

    #[test]
    fn a_frame_missing_a_tile_closes_no_bitmap_plane_but_count_planes_track_it() {
        // Bitmap rule: no plane ever closes, N_rtp < 1, the prediction is the learned time.
        let mut b = Estimator::with_closure(32, 32, 8, Closure::Bitmap);
        let (t, _) = partial(&mut b, 0, 4, 10);
        assert!(b.learned().unwrap().n_rtp < 1.0);
        let (_, p) = partial(&mut b, t, 4, 15);
        assert!(
            p.iter().all(|&c| (c - 10240.0).abs() < 1e-6),
            "stuck at learned"
        );
        // Count rule (the default): 4 planes; a uniformly 1.5x slower frame is tracked from the
        // first closed plane on and predicted exactly at the end.
        let mut e = Estimator::new(32, 32, 8);
        assert_eq!(e.plane_updates(), 256);
        let (t, _) = partial(&mut e, 0, 4, 10);
        assert_eq!(e.learned().unwrap().n_rtp, 4.0);
        let (_, p) = partial(&mut e, t, 4, 15);
        let truth = 4.0 * 256.0 * 15.0;
        assert!(p.windows(2).all(|w| w[1] >= w[0] - 1e-6), "rises");
        assert!((p[p.len() - 1] - truth).abs() < 1e-6, "{}", p[p.len() - 1]);
        // Halfway, λ = 0.5 of the way from the learned time to the truth.
        let mid = p[p.len() / 2 - 1];
        assert!((mid - (10240.0 + truth) / 2.0).abs() < 1e-6, "{mid}");
    }

    #[test]
    fn matched_rate_compares_equal_work_past_the_table_overflow() {
        // 70 planes: entries after the 64th accumulate; a frame twice as slow is still
        // predicted exactly at its end and a repeat exactly throughout.
        let mut e = Estimator::new(32, 32, 8);
        let (t, _) = partial(&mut e, 0, 70, 2);
        let (t, p) = partial(&mut e, t, 70, 2);
        assert!(p.iter().all(|&c| (c - 70.0 * 512.0).abs() < 1e-6));
        let (_, p) = partial(&mut e, t, 70, 4);
        assert!((p[p.len() - 1] - 70.0 * 1024.0).abs() < 1e-6);
    }

    #[test]
    fn table_overflow_accumulates_in_the_last_entry() {
        let mut e = Estimator::with_closure(32, 32, 8, Closure::Bitmap);
        frame(&mut e, 0, 70, 160);
        let l = e.learned().unwrap();
        assert_eq!(l.n_rtp, 70.0);
        assert_eq!(l.c_avg, 160.0);
        assert!(Estimator::table_bytes() < 1024);
    }
}
