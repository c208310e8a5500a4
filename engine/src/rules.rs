//! Action rules: validation (`plan_action`, which never rolls a die nor changes state) and
//! execution (`execute`): attacks, criticals, damage and DR, movement, charge, withdraw,
//! 5-foot step, attacks of opportunity, reach, flanking, cover, range.
//!
//! Sources: CRB — Combat (Attack Rolls, Critical Hits, Damage, Actions in Combat, Attacks of
//! Opportunity, Movement Position and Distance, Combat Modifiers: Cover, Flanking), CRB —
//! Glossary: Damage Reduction, Energy Resistance.

use crate::action::{reasons, Action, ActionKind, CombatantId};
use crate::data::{AttackKind, AttackSpec};
use crate::episode::{Episode, LifeState};
use crate::grid::{self, Cell, Passage, PathField, SQUARE_FT};
use crate::los::{self, CoverMode};

/// A validated action, ready to execute (all choices made, no dice rolled yet).
#[derive(Debug, Clone)]
pub(crate) enum Plan {
    Attack {
        target: CombatantId,
        weapon: usize,
    },
    FullAttack {
        target: CombatantId,
        weapon: usize,
    },
    Charge {
        target: CombatantId,
        weapon: usize,
        path: Vec<Cell>,
    },
    Move {
        path: Vec<Cell>,
    },
    Step {
        to: Cell,
    },
    Withdraw {
        path: Vec<Cell>,
    },
    Maneuver(crate::maneuvers::ManeuverPlan),
    StandUp,
    DropProne,
    RetrieveWeapon {
        weapon: usize,
    },
    RepairWeapon {
        weapon: usize,
    },
    TogglePowerAttack,
    Run {
        path: Vec<Cell>,
    },
}

/// Physical damage types (subject to DR; multiplied on a critical hit).
pub(crate) const PHYSICAL: [&str; 3] = ["bludgeoning", "piercing", "slashing"];

fn is_physical_component(types: &[String]) -> bool {
    types.is_empty() || types.iter().any(|t| PHYSICAL.contains(&t.as_str()))
}

// ----- basic look-ups ------------------------------------------------------------------------

pub(crate) fn idx(c: CombatantId) -> usize {
    c.0 as usize
}

impl Episode {
    pub(crate) fn n(&self) -> usize {
        self.st.len()
    }
    pub(crate) fn ids(&self) -> impl Iterator<Item = CombatantId> {
        (0..self.st.len() as u16).map(CombatantId)
    }
    pub(crate) fn spec(&self, c: CombatantId) -> &crate::data::CombatantSpec {
        &self.enc.combatants[idx(c)].spec
    }
    /// The combatant's spec, shared (cheap to clone, unlike the spec itself).
    pub(crate) fn spec_arc(&self, c: CombatantId) -> std::sync::Arc<crate::data::CombatantSpec> {
        std::sync::Arc::clone(&self.enc.combatants[idx(c)].spec)
    }
    pub(crate) fn side_of(&self, c: CombatantId) -> &str {
        &self.enc.combatants[idx(c)].side
    }
    pub(crate) fn enemies(&self, a: CombatantId, b: CombatantId) -> bool {
        self.side_of(a) != self.side_of(b)
    }
    pub(crate) fn conscious(&self, c: CombatantId) -> bool {
        self.st[idx(c)].life.is_conscious()
    }
    pub(crate) fn fp_side(&self, c: CombatantId) -> i32 {
        self.spec(c).size.footprint_side()
    }
    pub(crate) fn natural_reach_ft(&self, c: CombatantId) -> i32 {
        self.spec(c).size.natural_reach_ft()
    }
    pub(crate) fn cells_of(&self, c: CombatantId) -> Vec<Cell> {
        grid::footprint(self.st[idx(c)].pos, self.fp_side(c))
    }
    /// [`Self::cells_of`] without allocating.
    pub(crate) fn cells_iter(&self, c: CombatantId) -> impl Iterator<Item = Cell> {
        grid::footprint_iter(self.st[idx(c)].pos, self.fp_side(c))
    }
    /// Movement budget in feet (best of land and fly speed; half when disabled).
    pub(crate) fn speed_ft(&self, c: CombatantId) -> i32 {
        let s = self.spec(c);
        let best = s.speed_land_ft.max(s.speed_fly_ft.unwrap_or(0));
        // Half speed from conditions (entangled, exhausted, blinded), in whole squares.
        let best = if self.speed_halves(c) < 2 {
            (best / 2) / SQUARE_FT * SQUARE_FT
        } else {
            best
        };
        if self.st[idx(c)].life == LifeState::Disabled {
            (best / 2) / SQUARE_FT * SQUARE_FT
        } else {
            best
        }
    }
    /// Whether the combatant has the feat (case-insensitive name).
    pub(crate) fn has_feat(&self, c: CombatantId, feat: &str) -> bool {
        self.spec(c)
            .feats
            .iter()
            .any(|f| f.eq_ignore_ascii_case(feat))
    }
    /// Attacks of opportunity per round: 1, or 1 + Dex modifier with Combat Reflexes
    /// (CRB — Feats: Combat Reflexes).
    pub(crate) fn aoo_allowance(&self, c: CombatantId) -> u32 {
        let s = self.spec(c);
        if s.feats
            .iter()
            .any(|f| f.eq_ignore_ascii_case("Combat Reflexes"))
        {
            (1 + s.abilities.dex_mod()).max(1) as u32
        } else {
            1
        }
    }
    pub(crate) fn aoo_remaining(&self, c: CombatantId) -> u32 {
        self.aoo_allowance(c)
            .saturating_sub(self.st[idx(c)].aoo_used)
    }
    /// Squares a creature other than `mover` stands in, classified for `mover`'s movement:
    /// conscious enemies block; allies and helpless (unconscious) enemies may be passed
    /// through but not stopped on; the dead do not occupy (CRB — Combat: Moving Through a
    /// Square).
    pub(crate) fn passage_fn(&self, mover: CombatantId) -> impl Fn(Cell) -> Passage + '_ {
        let mut occ: Vec<(Cell, Passage)> = Vec::new();
        self.each_occupied(mover, |c, p| occ.push((c, p)));
        move |cell: Cell| {
            let mut best = Passage::Free;
            for (c, p) in &occ {
                if *c == cell {
                    if *p == Passage::Blocked {
                        return Passage::Blocked;
                    }
                    best = *p;
                }
            }
            best
        }
    }

    /// [`Self::passage_fn`] for every square of the map at once, row-major
    /// ([`crate::grid::Grid::search_cells`] entries): the same classification, built in one
    /// pass over the combatants instead of one per square.
    pub(crate) fn passage_map(&self, mover: CombatantId) -> Vec<Passage> {
        let g = &self.enc.grid;
        let n = g.search_cells();
        let mut pass = vec![Passage::Free; n];
        self.each_occupied(mover, |c, p| {
            if let Some(i) = g.index(c).filter(|&i| i < n) {
                if pass[i] != Passage::Blocked {
                    pass[i] = p;
                }
            }
        });
        pass
    }

    /// Calls `f(square, passage)` for every square of every combatant but `mover` and the
    /// dead, in list order ([`Self::passage_fn`]'s classification).
    fn each_occupied(&self, mover: CombatantId, mut f: impl FnMut(Cell, Passage)) {
        for o in self.ids() {
            if o == mover || self.st[idx(o)].life == LifeState::Dead {
                continue;
            }
            let (sm, so) = (self.spec(mover).size, self.spec(o).size);
            let p = if co_occupy(sm, so) {
                // Tiny or smaller with a larger creature: both may share the square.
                Passage::Free
            } else if self.enemies(mover, o) && self.conscious(o) {
                if size_gap(sm, so) >= 3 {
                    Passage::PassThrough
                } else {
                    Passage::Blocked
                }
            } else {
                Passage::PassThrough
            };
            for c in self.cells_iter(o) {
                f(c, p);
            }
        }
    }
    /// Dijkstra field of the mover from its position, up to `max_squares` (squares of
    /// movement cost).
    ///
    /// Memoised per thread (see [`field_memo`]): one decision asks for the same field many
    /// times (legal-action enumeration, validation of each candidate, the observation), and
    /// the field depends only on the encounter, the mover, the bound and every combatant's
    /// square and life state, which form the memo key.
    ///
    /// A memoised search with a larger bound (or none) answers a smaller bound through a cheap
    /// view ([`PathField::bounded`]), identical to the bounded search.
    pub(crate) fn move_field(&self, mover: CombatantId, max_squares: Option<u32>) -> PathField {
        field_memo::get_or_compute(self, mover, max_squares, || {
            self.enc.grid.dijkstra_passages(
                self.st[idx(mover)].pos,
                self.fp_side(mover),
                max_squares,
                self.passage_map(mover),
            )
        })
        .bounded(max_squares)
    }
}

/// Memos of movement fields ([`Episode::move_field`]), in two tiers: the episode's own
/// [`FieldSlot`] (its last few fields, so that an episode stepped once per batch, between
/// hundreds of others on the same thread, still finds the field its previous decision
/// computed) and a small per-thread memo (fields shared between episodes and policies).
///
/// The key is complete: the encounter (its `Arc` is held by the entry, so its address cannot
/// be reused while cached), the mover, the bound and `(square, life state)` of every
/// combatant — everything `passage_fn` and `Grid::dijkstra` read. A hit therefore returns
/// exactly the field a fresh search would, whatever episode or thread asks; the memos only
/// save time. The thread memo holds at most [`field_memo::CAPACITY`] fields per thread; an
/// episode at most [`field_memo::SLOT_CAPACITY`] fields, and none on maps of more than
/// [`field_memo::SLOT_MAX_CELLS`] squares (bounded memory per episode: about 5 KiB per
/// field on the 20 × 8 sample arena).
mod field_memo {
    use super::*;
    use std::cell::RefCell;
    use std::sync::Arc;

    /// Most fields kept per thread.
    pub(super) const CAPACITY: usize = 8;
    /// Most fields kept per episode.
    pub(super) const SLOT_CAPACITY: usize = 1;
    /// Episodes on larger maps keep no fields of their own.
    pub(super) const SLOT_MAX_CELLS: usize = 1024;

    #[derive(Clone)]
    pub(super) struct Entry {
        enc: Arc<crate::encounter::Encounter>,
        mover: CombatantId,
        /// The search's bound in squares (`None`: unbounded).
        max: Option<u32>,
        occupancy: Vec<(Cell, LifeState)>,
        field: PathField,
    }

    thread_local! {
        static MEMO: RefCell<Vec<Entry>> = const { RefCell::new(Vec::new()) };
    }

    /// Whether the entry's search answers a request bounded by `max` (its bound is no
    /// smaller).
    fn covers(have: Option<u32>, want: Option<u32>) -> bool {
        match (have, want) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(h), Some(w)) => h >= w,
        }
    }

    fn matches(e: &Entry, ep: &Episode, mover: CombatantId, max: Option<u32>) -> bool {
        e.mover == mover
            && covers(e.max, max)
            && Arc::ptr_eq(&e.enc, &ep.enc)
            && e.occupancy.len() == ep.st.len()
            && e.occupancy
                .iter()
                .zip(&ep.st)
                .all(|(&(pos, life), s)| pos == s.pos && life == s.life)
    }

    /// Find a matching entry, make it the most recently used (last), return its field.
    fn lookup(
        m: &mut Vec<Entry>,
        ep: &Episode,
        mover: CombatantId,
        max: Option<u32>,
    ) -> Option<PathField> {
        let i = m.iter().position(|e| matches(e, ep, mover, max))?;
        let e = m.remove(i);
        let field = e.field.clone();
        m.push(e);
        Some(field)
    }

    fn remember(m: &mut Vec<Entry>, cap: usize, e: Entry) {
        if m.len() >= cap {
            m.remove(0);
        }
        m.push(e);
    }

    pub(super) fn get_or_compute(
        ep: &Episode,
        mover: CombatantId,
        max: Option<u32>,
        compute: impl FnOnce() -> PathField,
    ) -> PathField {
        let use_slot = ep.enc.grid.search_cells() <= SLOT_MAX_CELLS;
        if use_slot {
            if let Some(field) = lookup(&mut ep.field_slot.lock(), ep, mover, max) {
                return field;
            }
        }
        let hit = MEMO.with(|m| lookup(&mut m.borrow_mut(), ep, mover, max));
        let (field, fresh) = match hit {
            Some(field) => (field, false),
            None => (compute(), true),
        };
        let entry = || Entry {
            enc: Arc::clone(&ep.enc),
            mover,
            max,
            occupancy: ep.st.iter().map(|s| (s.pos, s.life)).collect(),
            field: field.clone(),
        };
        if fresh {
            MEMO.with(|m| remember(&mut m.borrow_mut(), CAPACITY, entry()));
        }
        if use_slot {
            remember(&mut ep.field_slot.lock(), SLOT_CAPACITY, entry());
        }
        field
    }
}

/// The movement field an episode computed last (see `field_memo`): a cache, not state —
/// it never changes what the episode does, and a clone (snapshot, fork) shares the fields.
#[derive(Default)]
pub(crate) struct FieldSlot(std::sync::Mutex<Vec<field_memo::Entry>>);

impl FieldSlot {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<field_memo::Entry>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Clone for FieldSlot {
    fn clone(&self) -> Self {
        FieldSlot(std::sync::Mutex::new(self.lock().clone()))
    }
}

impl std::fmt::Debug for FieldSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "FieldSlot({} fields)", self.lock().len())
    }
}

/// Size categories between two creatures.
fn size_gap(a: crate::data::Size, b: crate::data::Size) -> i32 {
    (a as i32 - b as i32).abs()
}

/// Whether two creatures may end their movement in the same square: different sizes, the
/// smaller Tiny or smaller (CRB — Combat: Big and Little Creatures, "more than one such
/// creature can fit into a single square"). Several Tiny creatures sharing one square are
/// not modelled.
pub(crate) fn co_occupy(a: crate::data::Size, b: crate::data::Size) -> bool {
    a != b && a.min(b) <= crate::data::Size::Tiny
}

// ----- reach, range, threat --------------------------------------------------------------

/// Whether a melee attack with `reach` covers a square at offset `(dr, dc)` (absolute deltas).
/// Reach is a disc of `max_ft` by 5-10-5 counting, except that 10-ft reach also covers the
/// second diagonal (CRB — Combat: Big and Little Creatures, "reach of 10 feet … threatens the
/// second diagonal"); a reach weapon excludes squares at or within the natural reach (ring).
fn reach_covers(dr: i32, dc: i32, min_excl_ft: Option<i32>, max_ft: i32) -> bool {
    let d_ft = grid::distance_squares(Cell::new(0, 0), Cell::new(dr, dc)) * SQUARE_FT;
    let within = d_ft <= max_ft || (max_ft == 10 && dr == 2 && dc == 2);
    let beyond_dead = match min_excl_ft {
        Some(m) => d_ft > m && !(m == 10 && dr == 2 && dc == 2),
        None => true,
    };
    within && beyond_dead
}

/// Melee reach of an attack: `(dead zone, max)` in feet.
pub(crate) fn melee_reach(ep: &Episode, c: CombatantId, w: &AttackSpec) -> (Option<i32>, i32) {
    let nat = ep.natural_reach_ft(c);
    if w.reach_weapon {
        (Some(nat), w.reach_ft.unwrap_or(2 * nat).max(nat))
    } else {
        (None, w.reach_ft.unwrap_or(nat))
    }
}

pub(crate) fn footprints_in_reach(
    a: Cell,
    a_side: i32,
    t: Cell,
    t_side: i32,
    reach: (Option<i32>, i32),
) -> bool {
    for ar in a.row..a.row + a_side {
        for ac in a.col..a.col + a_side {
            for tr in t.row..t.row + t_side {
                for tc in t.col..t.col + t_side {
                    if reach_covers((ar - tr).abs(), (ac - tc).abs(), reach.0, reach.1) {
                        return true;
                    }
                }
            }
        }
    }
    false
}

/// Distance in feet between two combatants' footprints (attacker at `from`).
pub(crate) fn distance_ft_from(ep: &Episode, a: CombatantId, from: Cell, t: CombatantId) -> i32 {
    grid::footprint_distance_squares(from, ep.fp_side(a), ep.st[idx(t)].pos, ep.fp_side(t))
        * SQUARE_FT
}

/// Maximum range in feet of a ranged attack: 10 increments, 5 for thrown weapons and ranged
/// touch attacks (CRB — Combat: Range Penalty; Magic: ranged touch).
pub(crate) fn max_range_ft(w: &AttackSpec) -> i32 {
    let inc = w.range_increment_ft.unwrap_or(0);
    let n = if w.thrown || w.kind == AttackKind::Touch {
        5
    } else {
        10
    };
    inc * n
}

/// Range penalty: −2 per full range increment beyond the first (CRB — Combat: Range Penalty).
pub(crate) fn range_penalty(w: &AttackSpec, d_ft: i32) -> i32 {
    match w.range_increment_ft {
        Some(inc) if w.is_ranged() && inc > 0 && d_ft > inc => {
            let increments = (d_ft + inc - 1) / inc; // 1-based increment the target is in
            -2 * (increments - 1)
        }
        _ => 0,
    }
}

/// Whether weapon `w` of `a`, standing at `from`, can attack `t` now. Errors are reason codes:
/// `out_of_range`, `no_line_of_effect`.
pub(crate) fn can_weapon_attack(
    ep: &Episode,
    a: CombatantId,
    from: Cell,
    w: usize,
    t: CombatantId,
) -> Result<(), &'static str> {
    let spec = ep.spec(a);
    let Some(weapon) = spec.attacks.get(w) else {
        return Err(reasons::WEAPON_UNAVAILABLE);
    };
    // Dropped (disarm) or destroyed (sunder) items cannot attack.
    if !ep.weapon_usable(a, w) {
        return Err(reasons::WEAPON_UNAVAILABLE);
    }
    let tpos = ep.st[idx(t)].pos;
    if ep.st[idx(a)].ammo.get(w).copied().flatten() == Some(0) {
        return Err(reasons::OUT_OF_AMMUNITION);
    }
    if weapon.is_ranged() {
        // Prone: no ranged weapon but a crossbow (CRB — Conditions: Prone).
        if ep.has_condition(a, "prone") && !weapon.name.to_lowercase().contains("crossbow") {
            return Err(reasons::PREVENTED_BY_CONDITION);
        }
        let d = distance_ft_from(ep, a, from, t);
        if d > max_range_ft(weapon) {
            return Err(reasons::OUT_OF_RANGE);
        }
    } else {
        let reach = melee_reach(ep, a, weapon);
        if !footprints_in_reach(from, ep.fp_side(a), tpos, ep.fp_side(t), reach) {
            return Err(reasons::OUT_OF_RANGE);
        }
    }
    if !los::has_line_of_effect(&ep.enc.grid, from, ep.fp_side(a), tpos, ep.fp_side(t)) {
        return Err(reasons::NO_LINE_OF_EFFECT);
    }
    Ok(())
}

/// The seed's `weapon_for`: the first weapon (list order) that can attack the target from
/// `from`; else the reason (`no_weapon`, `no_line_of_effect`, `out_of_range`).
pub(crate) fn weapon_for(
    ep: &Episode,
    a: CombatantId,
    from: Cell,
    t: CombatantId,
) -> Result<usize, &'static str> {
    let n = ep.spec(a).attacks.len();
    if n == 0 {
        return Err(reasons::NO_WEAPON);
    }
    if (0..n).all(|w| !ep.weapon_usable(a, w)) {
        return Err(reasons::WEAPON_UNAVAILABLE);
    }
    let (mut saw_los, mut saw_ammo) = (false, false);
    for w in 0..n {
        match can_weapon_attack(ep, a, from, w, t) {
            Ok(()) => return Ok(w),
            Err(r) if r == reasons::NO_LINE_OF_EFFECT => saw_los = true,
            Err(r) if r == reasons::OUT_OF_AMMUNITION => saw_ammo = true,
            Err(_) => {}
        }
    }
    Err(if saw_los {
        reasons::NO_LINE_OF_EFFECT
    } else if saw_ammo {
        reasons::OUT_OF_AMMUNITION
    } else {
        reasons::OUT_OF_RANGE
    })
}

/// The first melee weapon of `x` that reaches `target` standing at `tpos` (with line of
/// effect), from `x`'s current position.
pub(crate) fn threatening_weapon(
    ep: &Episode,
    x: CombatantId,
    target: CombatantId,
    tpos: Cell,
) -> Option<usize> {
    each_threatening_weapon(ep, x, target, tpos).next()
}

/// Every melee weapon of `x` (list order) that reaches `target` standing at `tpos` (with line
/// of effect), from `x`'s current position: the weapons an attack of opportunity may use.
pub(crate) fn threatening_weapons(
    ep: &Episode,
    x: CombatantId,
    target: CombatantId,
    tpos: Cell,
) -> Vec<usize> {
    each_threatening_weapon(ep, x, target, tpos).collect()
}

fn each_threatening_weapon(
    ep: &Episode,
    x: CombatantId,
    target: CombatantId,
    tpos: Cell,
) -> impl Iterator<Item = usize> + '_ {
    let xpos = ep.st[idx(x)].pos;
    let spec = ep.spec(x);
    spec.attacks
        .iter()
        .enumerate()
        .filter(move |&(w, weapon)| {
            if weapon.is_ranged() || !ep.weapon_usable(x, w) {
                return false;
            }
            let reach = melee_reach(ep, x, weapon);
            footprints_in_reach(xpos, ep.fp_side(x), tpos, ep.fp_side(target), reach)
                && los::has_line_of_effect(
                    &ep.enc.grid,
                    xpos,
                    ep.fp_side(x),
                    tpos,
                    ep.fp_side(target),
                )
        })
        .map(|(w, _)| w)
}

/// Whether `x` threatens `target` as if it stood at `tpos` (conscious, melee weapon in reach —
/// CRB — Combat: Threatened Squares). Flat-footed creatures still threaten; a creature that
/// cannot act (stunned, paralyzed, helpless…) does not.
pub(crate) fn threatens(ep: &Episode, x: CombatantId, target: CombatantId, tpos: Cell) -> bool {
    ep.conscious(x)
        && !ep.cond_flag(x, |d| d.cant_act)
        && threatening_weapon(ep, x, target, tpos).is_some()
}

/// The squares (row-major, `rows × cols`) threatened by any of `threateners` for a 1×1
/// creature standing there (CRB — Combat: Threatened Squares): conscious, able to act, a
/// melee weapon whose reach covers the square, with line of effect. Only the squares around
/// each threatener are examined.
pub(crate) fn threatened_squares(ep: &Episode, threateners: &[CombatantId]) -> Vec<bool> {
    let grid = &ep.enc.grid;
    let (rows, cols) = (grid.rows, grid.cols);
    let mut out = vec![false; (rows.max(0) * cols.max(0)) as usize];
    for &x in threateners {
        if !ep.conscious(x) || ep.cond_flag(x, |d| d.cant_act) {
            continue;
        }
        let (xpos, side) = (ep.st[idx(x)].pos, ep.fp_side(x));
        for (_, w) in ep
            .spec(x)
            .attacks
            .iter()
            .enumerate()
            .filter(|(i, w)| !w.is_ranged() && ep.weapon_usable(x, *i))
        {
            let reach = melee_reach(ep, x, w);
            let k = reach.1 / SQUARE_FT + 1;
            for r in (xpos.row - k).max(0)..(xpos.row + side + k).min(rows) {
                for c in (xpos.col - k).max(0)..(xpos.col + side + k).min(cols) {
                    let i = (r * cols + c) as usize;
                    let cell = Cell::new(r, c);
                    if !out[i]
                        && footprints_in_reach(xpos, side, cell, 1, reach)
                        && los::has_line_of_effect(grid, xpos, side, cell, 1)
                    {
                        out[i] = true;
                    }
                }
            }
        }
    }
    out
}

/// Flanking (CRB — Combat Modifiers: Flanking): an ally of the attacker that threatens the
/// target, such that the line between the centres of a square of the attacker and a square of
/// the ally passes through opposite borders (corners included) of the target's space.
/// A target whose traits say `immune_flanking` is never flanked (Bestiary — Creature Types:
/// elemental and ooze traits).
pub(crate) fn flanking(ep: &Episode, a: CombatantId, from: Cell, t: CombatantId) -> bool {
    if ep.has_trait(t, "immune_flanking") {
        return false;
    }
    let tpos = ep.st[idx(t)].pos;
    let ts = ep.fp_side(t);
    // Target box in doubled coordinates (square (r,c) spans [2r, 2r+2]).
    let (top, left, bottom, right) = (
        2 * tpos.row,
        2 * tpos.col,
        2 * (tpos.row + ts),
        2 * (tpos.col + ts),
    );
    for ally in ep.ids() {
        if ally == a || ally == t || ep.enemies(a, ally) || !ep.conscious(ally) {
            continue;
        }
        if !threatens(ep, ally, t, tpos) {
            continue;
        }
        for ca in grid::footprint(from, ep.fp_side(a)) {
            for cb in grid::footprint(ep.st[idx(ally)].pos, ep.fp_side(ally)) {
                let p = (2 * ca.row + 1, 2 * ca.col + 1);
                let q = (2 * cb.row + 1, 2 * cb.col + 1);
                let hits_h = |y: i32| segment_hits_hline(p, q, y, left, right);
                let hits_v = |x: i32| segment_hits_vline(p, q, x, top, bottom);
                if (hits_h(top) && hits_h(bottom)) || (hits_v(left) && hits_v(right)) {
                    return true;
                }
            }
        }
    }
    false
}

/// Whether segment p→q (points as (row, col)) meets the horizontal segment row = y,
/// col ∈ [x0, x1] (closed).
fn segment_hits_hline(p: (i32, i32), q: (i32, i32), y: i32, x0: i32, x1: i32) -> bool {
    let (pr, pc) = (p.0 as i64, p.1 as i64);
    let (qr, qc) = (q.0 as i64, q.1 as i64);
    let y = y as i64;
    if (pr - y) * (qr - y) > 0 || pr == qr {
        return pr == qr && pr == y && pc.min(qc) <= x1 as i64 && pc.max(qc) >= x0 as i64;
    }
    // col at row y: pc + (qc-pc)*(y-pr)/(qr-pr); compare scaled to avoid division.
    let den = qr - pr;
    let num = pc * den + (qc - pc) * (y - pr);
    let (lo, hi) = (x0 as i64 * den, x1 as i64 * den);
    if den > 0 {
        num >= lo && num <= hi
    } else {
        num <= lo && num >= hi
    }
}

fn segment_hits_vline(p: (i32, i32), q: (i32, i32), x: i32, y0: i32, y1: i32) -> bool {
    segment_hits_hline((p.1, p.0), (q.1, q.0), x, y0, y1)
}

/// Terrain cover bonus plus soft cover (+4 vs ranged from creatures in between).
pub(crate) fn cover_bonus(
    ep: &Episode,
    a: CombatantId,
    from: Cell,
    t: CombatantId,
    ranged: bool,
) -> i32 {
    let tpos = ep.st[idx(t)].pos;
    let adjacent = grid::footprint_distance_squares(from, ep.fp_side(a), tpos, ep.fp_side(t)) <= 1;
    let mode = if !ranged && adjacent {
        CoverMode::MeleeAdjacent
    } else {
        CoverMode::Ranged
    };
    let terrain =
        los::terrain_cover_bonus(&ep.enc.grid, from, ep.fp_side(a), tpos, ep.fp_side(t), mode)
            as i32;
    let soft = if ranged {
        let mut occ: Vec<Cell> = Vec::new();
        for o in ep.ids() {
            if o != a && o != t && ep.conscious(o) {
                occ.extend(ep.cells_of(o));
            }
        }
        if los::soft_cover(
            &ep.enc.grid,
            from,
            ep.fp_side(a),
            tpos,
            ep.fp_side(t),
            &|c| occ.contains(&c),
        ) {
            4
        } else {
            0
        }
    } else {
        0
    };
    terrain.max(soft)
}

/// Shooting into melee (CRB — Combat: Shooting or Throwing into a Melee): −4 when the target is
/// engaged in melee with a friend of the attacker (either threatens the other), unless the
/// target is at least 10 ft from the nearest such friend.
/// Precise Shot removes the penalty (CRB — Feats: Precise Shot).
pub(crate) fn into_melee_penalty(ep: &Episode, a: CombatantId, t: CombatantId) -> i32 {
    if crate::feats::has(ep.spec(a), "Precise Shot") {
        return 0;
    }
    let tpos = ep.st[idx(t)].pos;
    for f in ep.ids() {
        if f == a || ep.enemies(a, f) || !ep.conscious(f) {
            continue;
        }
        let d =
            grid::footprint_distance_squares(ep.st[idx(f)].pos, ep.fp_side(f), tpos, ep.fp_side(t))
                * SQUARE_FT;
        if d >= 10 {
            continue;
        }
        let fpos = ep.st[idx(f)].pos;
        if threatens(ep, f, t, tpos) || threatens(ep, t, f, fpos) {
            return -4;
        }
    }
    0
}

// ----- validation ----------------------------------------------------------------------------

pub(crate) fn target_of(
    ep: &Episode,
    a: CombatantId,
    act: &Action,
) -> Result<CombatantId, &'static str> {
    let Some(t) = act.target else {
        return Err(reasons::MISSING_TARGET);
    };
    if idx(t) >= ep.n() || t == a || !ep.enemies(a, t) || !ep.conscious(t) {
        return Err(reasons::INVALID_TARGET);
    }
    Ok(t)
}

fn weapon_choice(
    ep: &Episode,
    a: CombatantId,
    act: &Action,
    t: CombatantId,
) -> Result<usize, &'static str> {
    let from = ep.st[idx(a)].pos;
    match act.weapon {
        Some(w) => {
            if w >= ep.spec(a).attacks.len() {
                return Err(reasons::WEAPON_UNAVAILABLE);
            }
            can_weapon_attack(ep, a, from, w, t).map_err(|_| reasons::WEAPON_UNAVAILABLE)?;
            Ok(w)
        }
        None => weapon_for(ep, a, from, t),
    }
}

/// Movement budget in squares for a kind.
pub(crate) fn budget_squares(ep: &Episode, a: CombatantId, mult: i32) -> u32 {
    (ep.speed_ft(a) * mult / SQUARE_FT).max(0) as u32
}

/// Cheapest path to a square from which weapon filter `ok_weapon` can attack `t`, truncated
/// to `budget` squares (last stoppable square on the path). `None` when no progress is possible.
pub(crate) fn path_toward(
    ep: &Episode,
    a: CombatantId,
    t: CombatantId,
    weapon: Option<usize>,
    budget: u32,
) -> Option<Vec<Cell>> {
    path_toward_in(ep, &ep.move_field(a, None), a, t, weapon, budget)
}

/// [`path_toward`] with a precomputed unbounded movement field of `a`.
pub(crate) fn path_toward_in(
    ep: &Episode,
    field: &PathField,
    a: CombatantId,
    t: CombatantId,
    weapon: Option<usize>,
    budget: u32,
) -> Option<Vec<Cell>> {
    path_toward_sorted(ep, field, squares_by_cost(field), a, t, weapon, budget)
}

/// The stoppable squares of `field`, cheapest first (ties by (row, col)): the search order of
/// [`path_toward`].
pub(crate) fn squares_by_cost(field: &PathField) -> &[(Cell, u32)] {
    field.by_cost()
}

/// [`path_toward_in`] with the field's squares already sorted ([`squares_by_cost`]), for
/// callers that ask about several targets.
pub(crate) fn path_toward_sorted(
    ep: &Episode,
    field: &PathField,
    squares: &[(Cell, u32)],
    a: CombatantId,
    t: CombatantId,
    weapon: Option<usize>,
    budget: u32,
) -> Option<Vec<Cell>> {
    let start = ep.st[idx(a)].pos;
    let n_w = ep.spec(a).attacks.len();
    let weapons: Vec<usize> = match weapon {
        Some(w) => vec![w],
        None => (0..n_w).collect(),
    };
    // Cheapest square first (ties by (row, col)) from which a weapon can attack.
    let best = squares.iter().copied().find(|(cell, _)| {
        weapons
            .iter()
            .any(|&w| can_weapon_attack(ep, a, *cell, w, t).is_ok())
    });
    let (goal, _) = best?;
    if goal == start {
        return None;
    }
    let full = field.path_to(goal)?;
    // Truncate to the budget: walk the path, keep the last stoppable square within budget.
    let mut keep = 0;
    for (i, c) in full.iter().enumerate() {
        match field.cost(*c) {
            Some(cost) if cost <= budget => {
                if field.can_stop(*c) {
                    keep = i + 1;
                }
            }
            _ => break,
        }
    }
    if keep == 0 {
        return None;
    }
    Some(full[..keep].to_vec())
}

/// Charge (CRB — Combat: Charge): the closest square from which the charger can attack the
/// target in melee, reached by a straight, clear line of at least 10 ft and at most twice its
/// speed; no difficult terrain, no creature, no corner cutting.
pub(crate) fn charge_path(
    ep: &Episode,
    a: CombatantId,
    t: CombatantId,
    weapon: Option<usize>,
) -> Result<(usize, Vec<Cell>), &'static str> {
    let spec = ep.spec(a);
    let w = match weapon {
        Some(w) => {
            if spec.attacks.get(w).is_none_or(|x| x.is_ranged()) || !ep.weapon_usable(a, w) {
                return Err(reasons::WEAPON_UNAVAILABLE);
            }
            w
        }
        None => spec
            .attacks
            .iter()
            .enumerate()
            .position(|(i, x)| !x.is_ranged() && ep.weapon_usable(a, i))
            .ok_or(reasons::NO_WEAPON)?,
    };
    let start = ep.st[idx(a)].pos;
    let side = ep.fp_side(a);
    let grid = &ep.enc.grid;
    let reach = melee_reach(ep, a, &spec.attacks[w]);
    let tpos = ep.st[idx(t)].pos;
    let ts = ep.fp_side(t);
    // Conscious creatures block the line of a charge ("helpless creatures don't stop a
    // charge" — CRB — Combat: Charge); the destination must be free of any living creature.
    let mut occupied: Vec<Cell> = Vec::new();
    let mut blocking: Vec<Cell> = Vec::new();
    for o in ep.ids() {
        if o != a && ep.st[idx(o)].life != LifeState::Dead {
            occupied.extend(ep.cells_iter(o));
            if ep.conscious(o) {
                blocking.extend(ep.cells_iter(o));
            }
        }
    }
    let cells_ok = |c: Cell, taken: &[Cell]| {
        grid::footprint_iter(c, side)
            .all(|x| grid.in_bounds(x) && grid.passable(x) && !taken.contains(&x))
    };
    let free_anchor = |c: Cell| cells_ok(c, &occupied);
    let passable_anchor = |c: Cell| cells_ok(c, &blocking);
    // Candidate attack squares, by distance then (row, col).
    let mut cands: Vec<(i32, i32, Cell)> = Vec::new();
    let max_r = reach.1 / SQUARE_FT + side + ts + 1;
    for r in (tpos.row - max_r)..=(tpos.row + max_r) {
        for c in (tpos.col - max_r)..=(tpos.col + max_r) {
            let cell = Cell::new(r, c);
            if !footprints_in_reach(cell, side, tpos, ts, reach) {
                continue;
            }
            if !los::has_line_of_effect(grid, cell, side, tpos, ts) {
                continue;
            }
            // Closest first; among equally close squares, the straightest line.
            let diag = (cell.row - start.row)
                .abs()
                .min((cell.col - start.col).abs());
            cands.push((grid::distance_squares(start, cell), diag, cell));
        }
    }
    if cands.iter().any(|(_, _, c)| *c == start) {
        // Already able to attack from here: a charge needs movement.
        return Err(reasons::NO_CHARGE_PATH);
    }
    cands.sort();
    let Some(&(closest, _, _)) = cands.first() else {
        return Err(reasons::NO_CHARGE_PATH);
    };
    if closest < 2 {
        return Err(reasons::NO_CHARGE_PATH); // less than 10 ft
    }
    let max_sq = budget_squares(ep, a, 2);
    let mut out_of_range = false;
    for &(_, _, dest) in cands.iter().take_while(|(d, _, _)| *d == closest) {
        if !free_anchor(dest) {
            continue;
        }
        let Some(cost) = grid.straight_line_cost(start, dest, |c| {
            passable_anchor(c) && !grid::footprint_iter(c, side).any(|x| grid.is_difficult(x))
        }) else {
            continue;
        };
        if cost > max_sq {
            out_of_range = true;
            continue;
        }
        return Ok((w, los::straight_line(start, dest)));
    }
    Err(if out_of_range {
        reasons::OUT_OF_RANGE
    } else {
        reasons::NO_CHARGE_PATH
    })
}

/// Validate an action for `a` now; never rolls dice nor changes state.
pub(crate) fn plan_action(
    ep: &Episode,
    a: CombatantId,
    act: &Action,
) -> Result<Plan, &'static str> {
    let moved = ep.turn.moved;
    match act.kind {
        ActionKind::EndTurn => unreachable!("handled by the caller"),
        // Refused by `Episode::check` before the rules (they answer reaction decisions).
        ActionKind::AttackOfOpportunity | ActionKind::Decline => Err(reasons::WRONG_DECISION_KIND),
        ActionKind::Attack | ActionKind::FullAttack => {
            let t = target_of(ep, a, act)?;
            let w = weapon_choice(ep, a, act, t)?;
            Ok(if act.kind == ActionKind::Attack {
                Plan::Attack {
                    target: t,
                    weapon: w,
                }
            } else {
                Plan::FullAttack {
                    target: t,
                    weapon: w,
                }
            })
        }
        ActionKind::Charge => {
            if moved {
                return Err(reasons::ALREADY_MOVED);
            }
            let t = target_of(ep, a, act)?;
            let (w, path) = charge_path(ep, a, t, act.weapon)?;
            Ok(Plan::Charge {
                target: t,
                weapon: w,
                path,
            })
        }
        ActionKind::Move => {
            if ep.turn.stepped {
                return Err(reasons::ALREADY_MOVED);
            }
            let budget = budget_squares(ep, a, 1);
            match (act.destination, act.target) {
                (Some(dest), _) => {
                    let field = ep.move_field(a, Some(budget));
                    if dest == ep.st[idx(a)].pos || !field.can_stop(dest) {
                        return Err(reasons::UNREACHABLE_DESTINATION);
                    }
                    let path = field
                        .path_to(dest)
                        .ok_or(reasons::UNREACHABLE_DESTINATION)?;
                    Ok(Plan::Move { path })
                }
                (None, Some(_)) => {
                    let t = target_of(ep, a, act)?;
                    if let Some(w) = act.weapon {
                        if w >= ep.spec(a).attacks.len() {
                            return Err(reasons::WEAPON_UNAVAILABLE);
                        }
                    }
                    let path = path_toward(ep, a, t, act.weapon, budget)
                        .ok_or(reasons::UNREACHABLE_DESTINATION)?;
                    Ok(Plan::Move { path })
                }
                (None, None) => Err(reasons::MISSING_TARGET),
            }
        }
        ActionKind::FiveFootStep => {
            if moved {
                return Err(reasons::ALREADY_MOVED);
            }
            let Some(dest) = act.destination else {
                return Err(reasons::MISSING_TARGET);
            };
            if budget_squares(ep, a, 1) == 0 {
                return Err(reasons::UNREACHABLE_DESTINATION);
            }
            let from = ep.st[idx(a)].pos;
            if grid::distance_squares(from, dest) != 1 {
                return Err(reasons::UNREACHABLE_DESTINATION);
            }
            // A 5-foot step costs exactly one square: never into difficult terrain or uphill
            // (CRB — Combat: Take 5-Foot Step).
            let field = ep.move_field(a, Some(1));
            if !field.can_stop(dest) || field.cost(dest) != Some(1) {
                return Err(reasons::UNREACHABLE_DESTINATION);
            }
            Ok(Plan::Step { to: dest })
        }
        ActionKind::Withdraw => {
            if moved {
                return Err(reasons::ALREADY_MOVED);
            }
            let Some(dest) = act.destination else {
                return Err(reasons::MISSING_TARGET);
            };
            let field = ep.move_field(a, Some(budget_squares(ep, a, 2)));
            if dest == ep.st[idx(a)].pos || !field.can_stop(dest) {
                return Err(reasons::UNREACHABLE_DESTINATION);
            }
            let path = field
                .path_to(dest)
                .ok_or(reasons::UNREACHABLE_DESTINATION)?;
            Ok(Plan::Withdraw { path })
        }
        ActionKind::Maneuver => crate::maneuvers::plan_maneuver(ep, a, act).map(Plan::Maneuver),
        ActionKind::StandUp => {
            if !ep.has_condition(a, "prone") {
                return Err(reasons::NOT_PRONE);
            }
            Ok(Plan::StandUp)
        }
        ActionKind::DropProne => {
            if ep.has_condition(a, "prone") {
                return Err(reasons::ALREADY_PRONE);
            }
            Ok(Plan::DropProne)
        }
        ActionKind::RetrieveWeapon => {
            let w = act.weapon.ok_or(reasons::WEAPON_UNAVAILABLE)?;
            if !crate::maneuvers::can_retrieve(ep, a, w) {
                return Err(reasons::WEAPON_UNAVAILABLE);
            }
            Ok(Plan::RetrieveWeapon { weapon: w })
        }
        ActionKind::RepairWeapon => {
            let w = act.weapon.ok_or(reasons::WEAPON_UNAVAILABLE)?;
            let ok = ep.st[idx(a)]
                .weapons
                .get(w)
                .is_some_and(|s| s.broken && !s.destroyed && s.dropped_at.is_none());
            if !ok {
                return Err(reasons::WEAPON_UNAVAILABLE);
            }
            Ok(Plan::RepairWeapon { weapon: w })
        }
        ActionKind::ActivatePowerAttack => {
            if !crate::feats::has(ep.spec(a), "Power Attack") {
                return Err(reasons::NO_POWER_ATTACK);
            }
            Ok(Plan::TogglePowerAttack)
        }
        ActionKind::Run => {
            if moved {
                return Err(reasons::ALREADY_MOVED);
            }
            if ep.st[idx(a)].run_rest > 0 {
                return Err(reasons::CANNOT_RUN);
            }
            let dest = act.destination.ok_or(reasons::MISSING_TARGET)?;
            let path = crate::maneuvers::run_path(ep, a, dest)?;
            Ok(Plan::Run { path })
        }
    }
}

// ----- execution -----------------------------------------------------------------------------

/// Options of one attack roll.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct AttackOpts {
    /// Iterative (−5/−10/−15) or secondary (−5) penalty, as a negative number.
    pub penalty: i32,
    /// The attack ends a charge (+2).
    pub charge: bool,
}

/// Execute a validated plan: what happens at once is done here; what may wait on a decision
/// (movement, attacks, attacks of opportunity) is pushed as frames ([`crate::resolve`]).
pub(crate) fn execute(ep: &mut Episode, a: CombatantId, plan: Plan) {
    use crate::resolve::Frame;
    match plan {
        Plan::Attack { target, weapon } => {
            ep.frames.push(Frame::Swing {
                attacker: a,
                target,
                weapon,
                opts: AttackOpts::default(),
                provoked: false,
            });
        }
        Plan::FullAttack { target, weapon } => full_attack(ep, a, target, weapon),
        Plan::Charge {
            target,
            weapon,
            path,
        } => {
            ep.turn.moved = true;
            ep.st[idx(a)].charging = true;
            ep.frames.push(Frame::ChargeAttack {
                attacker: a,
                target,
                weapon,
            });
            ep.start_walk(a, path, "charge", false);
        }
        Plan::Move { path } => {
            ep.turn.moved = true;
            ep.start_walk(a, path, "move", false);
        }
        Plan::Withdraw { path } => {
            ep.turn.moved = true;
            ep.start_walk(a, path, "withdraw", true);
        }
        Plan::Step { to } => {
            ep.turn.moved = true;
            ep.turn.stepped = true;
            let from = ep.st[idx(a)].pos;
            ep.st[idx(a)].pos = to;
            ep.log_turn(a, format!("5foot_step {from}->{to}"));
        }
        Plan::Maneuver(m) => crate::maneuvers::execute_maneuver(ep, a, m),
        Plan::StandUp => stand_up(ep, a),
        Plan::DropProne => {
            ep.log_turn(a, "drops prone (free action)".into());
            let _ = ep.apply_condition(a, "prone", None);
        }
        Plan::RetrieveWeapon { weapon } => crate::maneuvers::retrieve_weapon(ep, a, weapon),
        Plan::RepairWeapon { weapon } => crate::maneuvers::repair_weapon(ep, a, weapon),
        Plan::TogglePowerAttack => {
            let on = !ep.st[idx(a)].power_attack;
            ep.st[idx(a)].power_attack = on;
            let x = crate::maneuvers::power_attack_x(ep, a);
            let what = if on {
                // The damage bonus per melee attack of its stat block (CRB — Feats: Power
                // Attack: +2X, +3X two-handed, +X secondary natural attacks).
                let mut bonuses: Vec<String> = Vec::new();
                for w in ep.spec(a).attacks.iter().filter(|w| !w.is_ranged()) {
                    let b = crate::maneuvers::power_attack_damage(w, x);
                    let s = format!("+{b} {}", w.name);
                    if !bonuses.contains(&s) {
                        bonuses.push(s);
                    }
                }
                format!(
                    "activates Power Attack (-{x} melee attack and CMB; damage {})",
                    if bonuses.is_empty() {
                        "unchanged: no melee attack".to_string()
                    } else {
                        bonuses.join(", ")
                    }
                )
            } else {
                "deactivates Power Attack".to_string()
            };
            ep.log_turn(a, what);
        }
        Plan::Run { path } => crate::maneuvers::run(ep, a, path),
    }
}

/// A flat-footed creature makes no attacks of opportunity, unless it has Combat Reflexes
/// (CRB — Combat: Flat-Footed; Feats: Combat Reflexes); grappled, pinned and confused
/// creatures make none, nor does one that cannot act.
pub(crate) fn can_make_aoo(ep: &Episode, x: CombatantId) -> bool {
    if ep.cond_flag(x, |d| d.cant_act || (d.no_aoo && d.name != "flat_footed")) {
        return false;
    }
    !ep.has_condition(x, "flat_footed") || ep.has_feat(x, "Combat Reflexes")
}

/// `stand_up`: a move action that provokes attacks of opportunity, resolved while still prone
/// (CRB — Conditions: Prone; Actions in Combat: Stand up from prone). It is an opportunity
/// separate from leaving threatened squares.
pub(crate) fn stand_up(ep: &mut Episode, a: CombatantId) {
    ep.log_turn(a, "stands up (move action)".into());
    ep.frames.push(crate::resolve::Frame::StandUp { actor: a });
    ep.open_window(a, crate::resolve::Provocation::StandUp, None);
}

/// Confused (CRB — Conditions: Confused): d% at the start of its turn — 01–25 acts normally;
/// 26–50 babbles (turn lost); 51–75 deals 1d8 + Str modifier to itself with the item in hand;
/// 76–100 attacks the nearest creature (one melee attack if one reaches, else the turn is
/// lost). Returns whether the turn is lost. Simplification: "attacks the creature that last
/// attacked it" is not tracked.
pub(crate) fn confused_turn(ep: &mut Episode, a: CombatantId) -> bool {
    let d = ep.roll(100) as i32;
    if d <= 25 {
        ep.log_turn(a, format!("confused d%={d}: acts normally"));
        return false;
    }
    if d <= 50 {
        ep.log_turn(a, format!("confused d%={d}: babbles incoherently"));
        return true;
    }
    if d <= 75 {
        let s = ep.str_mods(a).1;
        let dmg = (ep.roll(8) as i32 + s).max(0);
        ep.log_turn(a, format!("confused d%={d}: hurts itself for {dmg}"));
        if dmg > 0 {
            ep.lose_hp(a, dmg);
        }
        return true;
    }
    let pos = ep.st[idx(a)].pos;
    let nearest = ep
        .ids()
        .filter(|&t| t != a && ep.conscious(t))
        .min_by_key(|&t| (distance_ft_from(ep, a, pos, t), t.0));
    let target = nearest.and_then(|t| {
        (0..ep.spec(a).attacks.len())
            .find(|&w| {
                !ep.spec(a).attacks[w].is_ranged() && can_weapon_attack(ep, a, pos, w, t).is_ok()
            })
            .map(|w| (t, w))
    });
    match target {
        Some((t, w)) => {
            let tid = ep.id_of(t).to_string();
            ep.log_turn(
                a,
                format!("confused d%={d}: attacks the nearest creature {tid}"),
            );
            attack_roll(ep, a, t, w, AttackOpts::default());
        }
        None => ep.log_turn(
            a,
            format!("confused d%={d}: no creature in reach, turn lost"),
        ),
    }
    true
}

/// Full attack (CRB — Combat: Full Attack): a manufactured weapon attacks at −0/−5/−10/−15 for
/// BAB +1/+6/+11/+16, `count` swings each; a natural weapon never gets iteratives — every
/// natural attack of the creature is made `count` times, at its printed bonus (secondary −5
/// included — Bestiary — Universal Monster Rules: Natural Attacks). Remaining swings are lost when the target falls.
fn full_attack(ep: &mut Episode, a: CombatantId, t: CombatantId, w: usize) {
    let spec = ep.spec_arc(a);
    let weapon = &spec.attacks[w];
    let mut swings: Vec<(usize, i32)> = Vec::new();
    if weapon.natural {
        for (i, x) in spec.attacks.iter().enumerate() {
            if !x.natural {
                continue;
            }
            let pos = ep.st[idx(a)].pos;
            if i != w && can_weapon_attack(ep, a, pos, i, t).is_err() {
                continue;
            }
            // `attack_bonus` is the stat block's printed value: a secondary attack's −5 is
            // already in it (Bestiary — Universal Monster Rules: Natural Attacks).
            for _ in 0..x.count {
                swings.push((i, 0));
            }
        }
    } else {
        let iteratives = 1 + [6, 11, 16].iter().filter(|&&b| spec.bab >= b).count() as i32;
        for k in 0..iteratives {
            for _ in 0..weapon.count {
                swings.push((w, -5 * k));
            }
        }
    }
    ep.frames.push(crate::resolve::Frame::FullAttack {
        attacker: a,
        target: t,
        swings,
        next: 0,
    });
}

/// One attack roll with a weapon, its critical confirmation, concealment and damage (a ranged
/// attack's attack of opportunity is resolved before, by its [`crate::resolve::Frame::Swing`]).
///
/// Attack modifiers (CRB — Combat: Attack Roll; Table: Attack Roll Modifiers) are collected as
/// typed [`crate::effects::Modifier`]s — the attacker's conditions and feats, charge, flanking,
/// high ground, range, shooting into melee, helpless target, invisible attacker — and stacked
/// by [`crate::effects::resolve`]; the AC likewise (see [`armor_class`]).
pub(crate) fn attack_roll(
    ep: &mut Episode,
    a: CombatantId,
    t: CombatantId,
    w: usize,
    opts: AttackOpts,
) {
    use crate::effects::{BonusType, Modifier, RollContext, Stat};
    let spec = ep.spec_arc(a);
    let weapon = spec.attacks[w].clone();
    let ranged = weapon.is_ranged();
    let from = ep.st[idx(a)].pos;
    let d_ft = distance_ft_from(ep, a, from, t);
    let wid = weapon.weapon_id();
    let ctx = RollContext {
        ranged,
        distance_ft: Some(d_ft),
        weapon: Some((&wid, &weapon.name)),
        descriptors: &[],
    };
    let mut mods: Vec<Modifier> = Vec::new();
    let sit = |stat: Stat, v: i32, src: &str| Modifier::new(stat, v, BonusType::Untyped, src);
    if opts.charge {
        mods.push(sit(Stat::Attack, 2, "charge"));
    }
    let flanked = !ranged && flanking(ep, a, from, t);
    if !ranged {
        if flanked {
            mods.push(sit(Stat::Attack, 2, "flanking"));
        }
        let (ea, et) = (
            ep.enc.grid.elevation(from),
            ep.enc.grid.elevation(ep.st[idx(t)].pos),
        );
        if ea > et {
            mods.push(sit(Stat::Attack, 1, "high ground"));
        }
    } else {
        let rp = range_penalty(&weapon, d_ft);
        if rp != 0 {
            mods.push(sit(Stat::Attack, rp, "range"));
        }
        let im = into_melee_penalty(ep, a, t);
        if im != 0 {
            mods.push(sit(Stat::Attack, im, "into melee"));
        }
    }
    // Helpless target: +4 to melee attacks (CRB — Conditions: Helpless).
    if !ranged && ep.cond_flag(t, |d| d.helpless) {
        mods.push(sit(Stat::Attack, 4, "helpless target"));
    }
    // Invisible attacker: +2 (CRB — Conditions: Invisible).
    let invisible = ep.has_condition(a, "invisible") && !ep.has_condition(t, "blinded");
    if invisible {
        mods.push(sit(Stat::Attack, 2, "invisible"));
    }
    mods.extend(ep.modifiers_for(a));
    // Power Attack (CRB — Feats): −X melee attack, +2X damage (+3X two-handed, +X with a
    // secondary natural attack); broken weapon: −2 attack and damage (CRB — Conditions: Broken).
    if !ranged {
        mods.extend(crate::maneuvers::power_attack_mods(ep, a, &weapon));
    }
    let broken = ep.weapon_broken(a, w);
    if broken {
        mods.push(sit(Stat::Attack, -2, "broken"));
        mods.push(sit(Stat::Damage, -2, "broken"));
    }
    let res = crate::effects::resolve(&mods, Stat::Attack, &ctx);
    let bonus = weapon.attack_bonus + opts.penalty + res.total;
    let mut notes: Vec<String> = Vec::new();
    if !res.applied.is_empty() {
        notes.push(res.note());
    }
    // Target AC (CRB — Combat: Armor Class, Touch Attacks, Flat-Footed).
    let touch = weapon.kind == AttackKind::Touch
        || (weapon.firearm && weapon.range_increment_ft.is_some_and(|inc| d_ft <= inc));
    let denied = ep.denied_dex(t) || invisible;
    let (mut ac, ac_note) = armor_class(ep, t, touch, denied, ranged);
    if !ac_note.is_empty() {
        notes.push(format!("target {ac_note}"));
    }
    if ep.st[idx(t)].charging {
        ac -= 2;
        notes.push("target charging AC -2".into());
    }
    let cover = cover_bonus(ep, a, from, t, ranged);
    if cover > 0 {
        ac += cover;
        notes.push(format!("cover +{cover}"));
    }
    if let Some(Some(left)) = ep.st[idx(a)].ammo.get_mut(w) {
        *left = left.saturating_sub(1);
    }
    let d = ep.roll(20) as i32;
    let total = d + bonus;
    ep.attrition[idx(a)].attacks += 1;
    let hit = d != 1 && (d == 20 || total >= ac);
    let tid = ep.id_of(t).to_string();
    let ac_label = if touch { "touch AC" } else { "AC" };
    let note = if notes.is_empty() {
        String::new()
    } else {
        format!(" [{}]", notes.join(", "))
    };
    let head = format!(
        "{} vs {tid} d20={d}{bonus:+}={total} {ac_label} {ac}{note}",
        weapon.name
    );
    // Firearm misfire (Ultimate Combat — Firearms): a natural roll within the misfire value
    // (1; +4 once broken) misses; the firearm gains the broken condition, and a broken
    // firearm that misfires again explodes (here: destroyed; the explosion's damage is not
    // modelled).
    if weapon.firearm {
        let broken = ep.st[idx(a)].weapons.get(w).is_some_and(|s| s.broken);
        let misfire = if broken { 5 } else { 1 };
        if d <= misfire {
            let what = if let Some(state) = ep.st[idx(a)].weapons.get_mut(w) {
                if state.broken {
                    state.destroyed = true;
                    "MISFIRE: the broken firearm explodes (destroyed)"
                } else {
                    state.broken = true;
                    "MISFIRE: the firearm is broken"
                }
            } else {
                "MISFIRE"
            };
            ep.log_turn(a, format!("{head} -> {what}"));
            return;
        }
    }
    if !hit {
        ep.log_turn(a, format!("{head} -> MISS"));
        return;
    }
    // Critical threat and confirmation: the confirmation is an attack roll with the same
    // bonus against the same AC; natural 20 confirms, natural 1 fails (CRB — Combat: Critical
    // Hits). A creature "not subject to critical hits" (trait `immune_critical`) takes a normal
    // hit and no confirmation is rolled.
    let mut mult = 1;
    let mut crit_note = String::new();
    // A broken weapon threatens only on a natural 20 and multiplies by ×2.
    let threat = if broken {
        20
    } else {
        crate::feats::crit_range(&spec, &weapon)
    };
    if d >= threat {
        if ep.has_trait(t, "immune_critical") {
            crit_note = " (immune to critical hits)".into();
        } else {
            let c = ep.roll(20) as i32;
            let ct = c + bonus;
            let confirmed = c != 1 && (c == 20 || ct >= ac);
            if confirmed {
                mult = if broken { 2 } else { weapon.crit_mult };
                crit_note = format!(" x{mult} (confirm d20={c}{bonus:+}={ct})");
            } else {
                crit_note = format!(" (threat not confirmed d20={c}{bonus:+}={ct})");
            }
        }
    }
    // Concealment (CRB — Combat: Concealment): after the hit and the confirmation, d100; a
    // roll within the miss chance misses.
    let miss = ep.miss_chance(a, t);
    if miss > 0 {
        let m = ep.roll(100);
        if m <= miss {
            ep.log_turn(
                a,
                format!("{head} -> MISS (concealment d100={m} <= {miss}%){crit_note}"),
            );
            return;
        }
        crit_note = format!("{crit_note} (concealment d100={m} > {miss}%)");
    }
    // Sneak attack (CRB — Classes: Rogue, Sneak Attack): when the target is denied its Dex
    // bonus to AC or flanked, melee or ranged within 30 ft; never against a target with
    // concealment nor one immune to precision damage.
    let sneak = ep.sneak_attack_dice(a);
    let sneak = if sneak > 0
        && miss == 0
        && !ep.has_trait(t, "immune_precision")
        && (denied || flanked)
        && (!ranged || d_ft <= 30)
    {
        sneak
    } else {
        0
    };
    let dmg_mod = crate::effects::resolve(&mods, Stat::Damage, &ctx);
    let dmg = roll_damage(ep, &weapon, mult, t, dmg_mod.total, sneak);
    ep.attrition[idx(a)].hits += 1;
    if mult > 1 {
        ep.attrition[idx(a)].crits += 1;
    }
    let before = ep.st[idx(t)].hp;
    let verdict = if mult > 1 { "CRIT" } else { "HIT" };
    let head = format!("{head} -> {verdict}{crit_note}");

    ep.st[idx(t)].hp -= dmg.total;
    ep.attrition[idx(a)].damage_dealt += dmg.total as i64;
    ep.attrition[idx(t)].damage_taken += dmg.total as i64;
    let after = ep.st[idx(t)].hp;
    ep.log_turn(
        a,
        format!(
            "{head} {} damage{} ({tid} hp {before}->{after})",
            dmg.total, dmg.note
        ),
    );
    if dmg.total > 0 {
        ep.update_life(t);
    }
    // Trip (Bestiary — Universal Monster Rules: Trip): a free trip attempt on a hit with the
    // specified attack, without provoking.
    if ep.conscious(t) && ep.conscious(a) && crate::maneuvers::trip_rider(ep, a, &weapon) {
        crate::maneuvers::free_trip(ep, a, t, w);
    }
}

/// Armor Class of `t` against an attack (CRB — Combat: Armor Class, Touch Attacks,
/// Flat-Footed): total, touch or flat-footed from the printed numbers; then the change of its
/// Dexterity part from Dex penalties (a denied creature keeps only a negative Dex modifier;
/// helpless: Dex 0), then its conditions' AC modifiers (vs melee / vs ranged; dodge bonuses
/// are lost when denied Dex). Returns the AC and a note of the modifiers applied.
pub(crate) fn armor_class(
    ep: &Episode,
    t: CombatantId,
    touch: bool,
    denied: bool,
    ranged: bool,
) -> (i32, String) {
    use crate::effects::{BonusType, RollContext, Stat};
    let tspec = ep.spec(t);
    let mut ac = match (touch, denied) {
        (false, false) => tspec.ac.total,
        (false, true) => tspec.ac.flat_footed,
        (true, false) => tspec.ac.touch,
        (true, true) => tspec.ac.touch - (tspec.ac.total - tspec.ac.flat_footed).max(0),
    };
    let mut notes = Vec::new();
    let (base, eff) = ep.dex_mods(t);
    let contrib = |m: i32| if denied { m.min(0) } else { m };
    let dd = contrib(eff) - contrib(base);
    if dd != 0 {
        ac += dd;
        notes.push(format!("Dex {dd:+}"));
    }
    let mods: Vec<_> = ep
        .modifiers_for(t)
        .into_iter()
        .filter(|m| !(denied && m.bonus_type == BonusType::Dodge))
        .collect();
    let ctx = RollContext {
        ranged,
        ..Default::default()
    };
    let r = crate::effects::resolve(&mods, Stat::Ac, &ctx);
    ac += r.total;
    if !r.applied.is_empty() {
        notes.push(r.note());
    }
    (ac, notes.join(", "))
}

pub(crate) struct DamageRoll {
    pub(crate) total: i32,
    pub(crate) note: String,
}

/// Roll damage of a hit (CRB — Combat: Damage; Critical Hits; Glossary: Damage Reduction,
/// Energy Resistance, Immunity):
/// - a confirmed critical rolls the weapon damage (dice and flat bonus) `mult` times and adds
///   them; precision and energy components are rolled once; `dmg_mod` (stacked damage
///   modifiers: sickened, Point-Blank Shot, Str penalty) is a flat bonus multiplied with the
///   dice; `sneak_d6` precision dice are added once, as physical damage (subject to DR);
/// - DR applies once to the physical part of the hit, after multiplication, unless the attack
///   has every bypass component; energy resistance/immunity applies per component;
/// - the total never goes below 0.
pub(crate) fn roll_damage(
    ep: &mut Episode,
    w: &AttackSpec,
    mult: i32,
    t: CombatantId,
    dmg_mod: i32,
    sneak_d6: u32,
) -> DamageRoll {
    let tspec = ep.spec_arc(t);
    let mut physical = 0i32;
    let mut energy_total = 0i32;
    let mut notes: Vec<String> = Vec::new();
    for (i, comp) in w.damage.iter().enumerate() {
        let expr: crate::dice::DiceExpr = comp
            .formula
            .parse()
            .expect("validated when the combatant was loaded");
        let phys = is_physical_component(&comp.types) && !comp.precision;
        let times = if phys { mult } else { 1 };
        let mut sum = 0;
        for _ in 0..times {
            sum += expr.roll(&mut ep.dice).total;
            if i == 0 {
                sum += w.damage_bonus + dmg_mod;
            }
        }
        let sum = sum.max(0);
        if is_physical_component(&comp.types) {
            physical += sum;
        } else {
            // Energy: immunity, then resistance, per damage type of the component.
            let mut v = sum;
            if comp.types.iter().any(|ty| tspec.immunities.contains(ty)) {
                notes.push(format!("immune {}", comp.types.join("/")));
                v = 0;
            } else if let Some(r) = comp
                .types
                .iter()
                .filter_map(|ty| tspec.resistances.get(ty))
                .max()
            {
                let cut = (*r).min(v);
                if cut > 0 {
                    notes.push(format!("resist {} -{cut}", comp.types.join("/")));
                }
                v -= cut;
            }
            energy_total += v;
        }
    }
    if sneak_d6 > 0 {
        let mut sa = 0;
        for _ in 0..sneak_d6 {
            sa += ep.roll(6) as i32;
        }
        physical += sa;
        notes.push(format!("sneak attack {sneak_d6}d6={sa}"));
    }
    // Immunity to a physical type (rare) removes it too.
    if physical > 0 {
        let phys_types: Vec<&String> = w
            .damage
            .iter()
            .flat_map(|c| c.types.iter())
            .filter(|ty| PHYSICAL.contains(&ty.as_str()))
            .collect();
        if !phys_types.is_empty() && phys_types.iter().all(|ty| tspec.immunities.contains(ty)) {
            notes.push("immune".into());
            physical = 0;
        }
    }
    if let Some(dr) = &tspec.dr {
        if physical > 0 && !bypasses_dr(w, &dr.bypass) {
            let cut = dr.amount.min(physical);
            let label = if dr.bypass.is_empty() {
                "—".to_string()
            } else {
                dr.bypass.join(" and ")
            };
            notes.push(format!("DR {}/{label} -{cut}", dr.amount));
            physical -= cut;
        }
    }
    let total = (physical + energy_total).max(0);
    DamageRoll {
        total,
        note: if notes.is_empty() {
            String::new()
        } else {
            format!(" [{}]", notes.join(", "))
        },
    }
}

/// An attack bypasses DR when it has every bypass component: its physical damage types plus
/// its declared `dr_bypass` materials/alignments. DR X/— is never bypassed.
fn bypasses_dr(w: &AttackSpec, bypass: &[String]) -> bool {
    if bypass.is_empty() {
        return false;
    }
    bypass.iter().all(|b| {
        let b = b.to_lowercase();
        w.dr_bypass.iter().any(|x| x.to_lowercase() == b)
            || w.damage
                .iter()
                .any(|c| c.types.iter().any(|t| t.to_lowercase() == b))
    })
}

#[cfg(test)]
mod tests {
    use crate::data::CombatantSpec;
    use crate::episode::{Controller, Episode, Status};
    use crate::map::MapSpec;
    use crate::{Encounter, RulesOptions};
    use std::sync::Arc;

    /// `passage_map` classifies every square exactly as `passage_fn` does, for every mover,
    /// at every decision of random episodes (a 2×2 ogre among goblins and orcs: footprints,
    /// allies, enemies, the unconscious and the dead).
    #[test]
    fn passage_map_matches_passage_fn() {
        let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data");
        let map = MapSpec::load(&data.join("maps/sample_arena.yaml")).unwrap();
        let m = |n: &str| {
            let spec = CombatantSpec::load(&data.join(format!("monsters/{n}.json"))).unwrap();
            (n.to_string(), spec)
        };
        let sides = vec![
            (
                "players".to_string(),
                vec![m("goblin"), m("goblin"), m("orc")],
            ),
            ("monsters".to_string(), vec![m("ogre"), m("orc")]),
        ];
        let enc = Arc::new(Encounter::build(map, sides, RulesOptions::default()).unwrap());
        let g = &enc.grid;
        let mut checked = 0;
        for seed in 0..6u64 {
            let mut ep = Episode::new(enc.clone(), seed, &[Controller::External; 3]);
            for k in 0..200usize {
                let Status::Decision(d) = ep.advance() else {
                    break;
                };
                for mover in ep.ids() {
                    let map = ep.passage_map(mover);
                    let f = ep.passage_fn(mover);
                    for (i, p) in map.iter().enumerate() {
                        let cell = crate::grid::Cell::new(
                            (i / g.cols as usize) as i32,
                            (i % g.cols as usize) as i32,
                        );
                        assert_eq!(*p, f(cell), "seed {seed}, mover {mover:?}, {cell}");
                        checked += 1;
                    }
                }
                let mask = ep.action_mask();
                let legal: Vec<u32> = (0..mask.len() as u32)
                    .filter(|&i| mask[i as usize] == 1)
                    .collect();
                let a = ep.action_from_id(legal[(k * 7 + seed as usize) % legal.len()]);
                ep.submit(d.decision_id, &[a.unwrap()]).unwrap();
            }
        }
        assert!(checked > 10_000, "{checked}");
    }
}
