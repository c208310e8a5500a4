//! Movement (CRB — Combat: Move Actions; Moving Through a Square; Big and Little Creatures):
//! which squares a mover may pass or stop in, its movement field (Dijkstra over 5-10-5 step
//! costs, `geometry::grid`) with its memos, and the path toward a target.
//!
//! Units: budgets and costs in squares of movement; speeds in feet.

use crate::actions::CombatantId;
use crate::episode::{Episode, LifeState};
use crate::geometry::grid::{Cell, Passage, PathField, SQUARE_FT};
use crate::rules::idx;
use crate::rules::weapons::can_weapon_attack;

/// Size categories between two creatures.
fn size_gap(a: crate::content::combatant::Size, b: crate::content::combatant::Size) -> i32 {
    (a as i32 - b as i32).abs()
}

/// Whether two creatures may end their movement in the same square: different sizes, the
/// smaller Tiny or smaller (CRB — Combat: Big and Little Creatures, "more than one such
/// creature can fit into a single square"). Several Tiny creatures sharing one square are
/// not modelled.
pub(crate) fn co_occupy(
    a: crate::content::combatant::Size,
    b: crate::content::combatant::Size,
) -> bool {
    a != b && a.min(b) <= crate::content::combatant::Size::Tiny
}

/// Whether a creature whose current speed is `speed_ft` ([`Episode::speed_ft`]: the best of
/// land and fly, halved by entangled, exhausted, blinded or by being disabled) can take a
/// 5-foot step at all: not with a speed of 5 ft or less (CRB — Combat: Take 5-Foot Step: a
/// creature that slow "can't take a 5-foot step", moving even 5 feet takes it a move action).
/// The one test read by the step's legality (`actions::movement::check_step`) and by the
/// turn budget's `five_foot_step` ([`Episode::budget`]), so the two cannot diverge.
#[inline]
pub(crate) fn speed_allows_five_foot_step(speed_ft: i32) -> bool {
    speed_ft > SQUARE_FT
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
        enc: Arc<crate::content::encounter::Encounter>,
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

impl Episode {
    /// Squares a creature other than `mover` stands in, classified for `mover`'s movement:
    /// conscious enemies block; allies and helpless (unconscious) enemies may be passed
    /// through but not stopped on; the dead do not occupy (CRB — Combat: Moving Through a
    /// Square).
    #[cfg(test)]
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
    /// ([`crate::geometry::grid::Grid::search_cells`] entries): the same classification, built in one
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

#[cfg(test)]
mod tests {
    use crate::content::combatant::CombatantSpec;
    use crate::content::map::MapSpec;
    use crate::episode::{Controller, Episode, Status};
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
                        let cell = crate::geometry::grid::Cell::new(
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
