//! A checked action ([`Plan`]: every choice made, no die rolled) and its execution, by kind:
//! what happens at once is done here or in the kind's module; what may wait on a decision
//! (movement, attacks, attacks of opportunity) is pushed as frames
//! ([`crate::episode::frames`]).

use crate::actions::CombatantId;
use crate::episode::Episode;
use crate::geometry::grid::Cell;

/// A checked action, ready to execute. Squares are anchors; `budget`s are squares of
/// movement (the path is the actor's field's, bounded by it).
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
    /// A move toward a target, along `path`.
    Move {
        path: Vec<Cell>,
    },
    /// A move to a square.
    MoveTo {
        dest: Cell,
        budget: u32,
    },
    Step {
        to: Cell,
    },
    Withdraw {
        dest: Cell,
        budget: u32,
    },
    Maneuver(crate::rules::maneuvers::ManeuverPlan),
    StandUp,
    DropProne,
    RetrieveWeapon {
        weapon: usize,
    },
    RepairWeapon {
        weapon: usize,
    },
    TogglePowerAttack,
    TotalDefense,
    FightDefensively,
    ToggleDeadlyAim,
    ToggleCombatExpertise,
    Run {
        dest: Cell,
    },
    /// Act later this round: after `after`'s turn, or at the end of the round.
    Delay {
        after: Option<CombatantId>,
    },
    /// Ready `action` for `trigger`.
    Ready {
        action: crate::actions::Action,
        trigger: crate::actions::ReadyTrigger,
    },
    Cleave {
        target: CombatantId,
        weapon: usize,
    },
    /// Spring Attack (`spring`) or Shot on the Run: the attack from `at`, the move ends at
    /// `dest`; `speed` is the actor's speed in squares.
    MoveAttack {
        target: CombatantId,
        weapon: usize,
        at: Cell,
        dest: Cell,
        spring: bool,
        speed: u32,
    },
    Lunge,
    AidAnother {
        opponent: CombatantId,
        ally: CombatantId,
        weapon: usize,
        mode: crate::actions::AidMode,
    },
    CoupDeGrace {
        target: CombatantId,
        weapon: usize,
    },
    DrawWeapon {
        weapon: usize,
    },
    SheatheWeapon {
        weapon: usize,
    },
    CastSpell(crate::rules::magic::CastPlan),
    CastDefensively,
    ActivateMetamagic(crate::actions::Metamagic),
}

/// Execute a checked plan of `a`.
pub(crate) fn execute(ep: &mut Episode, a: CombatantId, plan: Plan) {
    use super::*;
    match plan {
        Plan::Attack { target, weapon } => attack::execute_attack(ep, a, target, weapon),
        Plan::FullAttack { target, weapon } => attack::execute_full_attack(ep, a, target, weapon),
        Plan::Charge {
            target,
            weapon,
            path,
        } => charge::execute(ep, a, target, weapon, path),
        // A regular move: a draw after it may be free (CRB — Draw or Sheathe a Weapon).
        Plan::Move { path } => {
            regular_move(ep);
            movement::execute_walk(ep, a, path, "move", false)
        }
        Plan::MoveTo { dest, budget } => {
            regular_move(ep);
            movement::execute_walk_to(ep, a, dest, budget, "move", false)
        }
        Plan::Withdraw { dest, budget } => {
            movement::execute_walk_to(ep, a, dest, budget, "withdraw", true)
        }
        Plan::Step { to } => movement::execute_step(ep, a, to),
        Plan::Maneuver(m) => crate::rules::maneuvers::execute_maneuver(ep, a, m),
        Plan::StandUp => prone::execute_stand_up(ep, a),
        Plan::DropProne => prone::execute_drop_prone(ep, a),
        Plan::RetrieveWeapon { weapon } => crate::rules::items::retrieve_weapon(ep, a, weapon),
        Plan::RepairWeapon { weapon } => crate::rules::items::repair_weapon(ep, a, weapon),
        Plan::TogglePowerAttack => power_attack::execute(ep, a),
        Plan::TotalDefense => defense::execute_total_defense(ep, a),
        Plan::FightDefensively => defense::execute_fight_defensively(ep, a),
        Plan::Delay { after } => crate::rules::ready::execute_delay(ep, a, after),
        Plan::Ready { action, trigger } => {
            crate::rules::ready::execute_ready(ep, a, action, trigger)
        }
        Plan::Cleave { target, weapon } => movement_feats::execute_cleave(ep, a, target, weapon),
        Plan::MoveAttack {
            target,
            weapon,
            at,
            dest,
            spring,
            speed,
        } => crate::rules::feats_movement::execute_move_attack(
            ep, a, target, weapon, at, dest, spring, speed,
        ),
        Plan::Lunge => movement_feats::execute_lunge(ep, a),
        Plan::ToggleDeadlyAim => toggles::execute_deadly_aim(ep, a),
        Plan::ToggleCombatExpertise => toggles::execute_combat_expertise(ep, a),
        Plan::Run { dest } => {
            let path = crate::geometry::los::straight_line(ep.position(a), dest);
            crate::rules::run::run(ep, a, path)
        }
        Plan::AidAnother {
            opponent,
            ally,
            weapon,
            mode,
        } => crate::rules::aid::aid_another(ep, a, opponent, ally, weapon, mode),
        Plan::CoupDeGrace { target, weapon } => {
            crate::rules::coup_de_grace::start(ep, a, target, weapon)
        }
        Plan::DrawWeapon { weapon } => crate::rules::items::draw_weapon(ep, a, weapon),
        Plan::SheatheWeapon { weapon } => crate::rules::items::sheathe_weapon(ep, a, weapon),
        Plan::CastSpell(p) => crate::rules::magic::start(ep, a, p),
        Plan::CastDefensively => cast::execute_cast_defensively(ep, a),
        Plan::ActivateMetamagic(m) => cast::execute_activate_metamagic(ep, a, m),
    }
}

/// A `move` action of the turn: one draw after it may be free (at BAB +1 or higher —
/// `Episode::draw_free_with_move`).
fn regular_move(ep: &mut Episode) {
    ep.turn.regular_move = true;
    ep.turn.free_draw_used = false;
}
