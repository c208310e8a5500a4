from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ActionKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ACTION_KIND_UNSPECIFIED: _ClassVar[ActionKind]
    ACTION_KIND_END_TURN: _ClassVar[ActionKind]
    ACTION_KIND_ATTACK: _ClassVar[ActionKind]
    ACTION_KIND_FULL_ATTACK: _ClassVar[ActionKind]
    ACTION_KIND_CHARGE: _ClassVar[ActionKind]
    ACTION_KIND_MOVE: _ClassVar[ActionKind]
    ACTION_KIND_FIVE_FOOT_STEP: _ClassVar[ActionKind]
    ACTION_KIND_WITHDRAW: _ClassVar[ActionKind]
ACTION_KIND_UNSPECIFIED: ActionKind
ACTION_KIND_END_TURN: ActionKind
ACTION_KIND_ATTACK: ActionKind
ACTION_KIND_FULL_ATTACK: ActionKind
ACTION_KIND_CHARGE: ActionKind
ACTION_KIND_MOVE: ActionKind
ACTION_KIND_FIVE_FOOT_STEP: ActionKind
ACTION_KIND_WITHDRAW: ActionKind

class Scenario(_message.Message):
    __slots__ = ("named", "inline")
    NAMED_FIELD_NUMBER: _ClassVar[int]
    INLINE_FIELD_NUMBER: _ClassVar[int]
    named: str
    inline: InlineScenario
    def __init__(self, named: _Optional[str] = ..., inline: _Optional[_Union[InlineScenario, _Mapping]] = ...) -> None: ...

class InlineScenario(_message.Message):
    __slots__ = ("map_yaml", "sides", "round_cap", "simple_monster_death")
    MAP_YAML_FIELD_NUMBER: _ClassVar[int]
    SIDES_FIELD_NUMBER: _ClassVar[int]
    ROUND_CAP_FIELD_NUMBER: _ClassVar[int]
    SIMPLE_MONSTER_DEATH_FIELD_NUMBER: _ClassVar[int]
    map_yaml: str
    sides: _containers.RepeatedCompositeFieldContainer[InlineSide]
    round_cap: int
    simple_monster_death: bool
    def __init__(self, map_yaml: _Optional[str] = ..., sides: _Optional[_Iterable[_Union[InlineSide, _Mapping]]] = ..., round_cap: _Optional[int] = ..., simple_monster_death: _Optional[bool] = ...) -> None: ...

class InlineSide(_message.Message):
    __slots__ = ("name", "combatants")
    NAME_FIELD_NUMBER: _ClassVar[int]
    COMBATANTS_FIELD_NUMBER: _ClassVar[int]
    name: str
    combatants: _containers.RepeatedCompositeFieldContainer[InlineCombatant]
    def __init__(self, name: _Optional[str] = ..., combatants: _Optional[_Iterable[_Union[InlineCombatant, _Mapping]]] = ...) -> None: ...

class InlineCombatant(_message.Message):
    __slots__ = ("json", "base_id")
    JSON_FIELD_NUMBER: _ClassVar[int]
    BASE_ID_FIELD_NUMBER: _ClassVar[int]
    json: str
    base_id: str
    def __init__(self, json: _Optional[str] = ..., base_id: _Optional[str] = ...) -> None: ...

class ListScenariosRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListScenariosResponse(_message.Message):
    __slots__ = ("scenarios",)
    SCENARIOS_FIELD_NUMBER: _ClassVar[int]
    scenarios: _containers.RepeatedCompositeFieldContainer[ScenarioInfo]
    def __init__(self, scenarios: _Optional[_Iterable[_Union[ScenarioInfo, _Mapping]]] = ...) -> None: ...

class ScenarioInfo(_message.Message):
    __slots__ = ("name", "description", "map", "sides", "round_cap", "simple_monster_death", "error")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    MAP_FIELD_NUMBER: _ClassVar[int]
    SIDES_FIELD_NUMBER: _ClassVar[int]
    ROUND_CAP_FIELD_NUMBER: _ClassVar[int]
    SIMPLE_MONSTER_DEATH_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    map: str
    sides: _containers.RepeatedCompositeFieldContainer[SideInfo]
    round_cap: int
    simple_monster_death: bool
    error: str
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., map: _Optional[str] = ..., sides: _Optional[_Iterable[_Union[SideInfo, _Mapping]]] = ..., round_cap: _Optional[int] = ..., simple_monster_death: _Optional[bool] = ..., error: _Optional[str] = ...) -> None: ...

class SideInfo(_message.Message):
    __slots__ = ("name", "combatants")
    NAME_FIELD_NUMBER: _ClassVar[int]
    COMBATANTS_FIELD_NUMBER: _ClassVar[int]
    name: str
    combatants: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., combatants: _Optional[_Iterable[str]] = ...) -> None: ...

class GetSpecRequest(_message.Message):
    __slots__ = ("scenario",)
    SCENARIO_FIELD_NUMBER: _ClassVar[int]
    scenario: Scenario
    def __init__(self, scenario: _Optional[_Union[Scenario, _Mapping]] = ...) -> None: ...

class Spec(_message.Message):
    __slots__ = ("scenario", "map", "sides", "combatants", "action_space_size", "rng_version", "engine_version", "round_cap", "simple_monster_death", "mask_polarity", "protocol")
    SCENARIO_FIELD_NUMBER: _ClassVar[int]
    MAP_FIELD_NUMBER: _ClassVar[int]
    SIDES_FIELD_NUMBER: _ClassVar[int]
    COMBATANTS_FIELD_NUMBER: _ClassVar[int]
    ACTION_SPACE_SIZE_FIELD_NUMBER: _ClassVar[int]
    RNG_VERSION_FIELD_NUMBER: _ClassVar[int]
    ENGINE_VERSION_FIELD_NUMBER: _ClassVar[int]
    ROUND_CAP_FIELD_NUMBER: _ClassVar[int]
    SIMPLE_MONSTER_DEATH_FIELD_NUMBER: _ClassVar[int]
    MASK_POLARITY_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_FIELD_NUMBER: _ClassVar[int]
    scenario: str
    map: MapInfo
    sides: _containers.RepeatedScalarFieldContainer[str]
    combatants: _containers.RepeatedCompositeFieldContainer[CombatantInfo]
    action_space_size: int
    rng_version: str
    engine_version: str
    round_cap: int
    simple_monster_death: bool
    mask_polarity: str
    protocol: str
    def __init__(self, scenario: _Optional[str] = ..., map: _Optional[_Union[MapInfo, _Mapping]] = ..., sides: _Optional[_Iterable[str]] = ..., combatants: _Optional[_Iterable[_Union[CombatantInfo, _Mapping]]] = ..., action_space_size: _Optional[int] = ..., rng_version: _Optional[str] = ..., engine_version: _Optional[str] = ..., round_cap: _Optional[int] = ..., simple_monster_death: _Optional[bool] = ..., mask_polarity: _Optional[str] = ..., protocol: _Optional[str] = ...) -> None: ...

class MapInfo(_message.Message):
    __slots__ = ("name", "rows", "cols", "square_size_ft")
    NAME_FIELD_NUMBER: _ClassVar[int]
    ROWS_FIELD_NUMBER: _ClassVar[int]
    COLS_FIELD_NUMBER: _ClassVar[int]
    SQUARE_SIZE_FT_FIELD_NUMBER: _ClassVar[int]
    name: str
    rows: int
    cols: int
    square_size_ft: int
    def __init__(self, name: _Optional[str] = ..., rows: _Optional[int] = ..., cols: _Optional[int] = ..., square_size_ft: _Optional[int] = ...) -> None: ...

class CombatantInfo(_message.Message):
    __slots__ = ("index", "id", "name", "side", "player_character", "size")
    INDEX_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SIDE_FIELD_NUMBER: _ClassVar[int]
    PLAYER_CHARACTER_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    index: int
    id: str
    name: str
    side: str
    player_character: bool
    size: str
    def __init__(self, index: _Optional[int] = ..., id: _Optional[str] = ..., name: _Optional[str] = ..., side: _Optional[str] = ..., player_character: _Optional[bool] = ..., size: _Optional[str] = ...) -> None: ...

class Controlled(_message.Message):
    __slots__ = ("sides", "combatant_ids")
    SIDES_FIELD_NUMBER: _ClassVar[int]
    COMBATANT_IDS_FIELD_NUMBER: _ClassVar[int]
    sides: _containers.RepeatedScalarFieldContainer[str]
    combatant_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, sides: _Optional[_Iterable[str]] = ..., combatant_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class ResetRequest(_message.Message):
    __slots__ = ("scenario", "seed", "controlled")
    SCENARIO_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    CONTROLLED_FIELD_NUMBER: _ClassVar[int]
    scenario: Scenario
    seed: int
    controlled: Controlled
    def __init__(self, scenario: _Optional[_Union[Scenario, _Mapping]] = ..., seed: _Optional[int] = ..., controlled: _Optional[_Union[Controlled, _Mapping]] = ...) -> None: ...

class StepRequest(_message.Message):
    __slots__ = ("episode_id", "decision_id", "actions", "action_ids")
    EPISODE_ID_FIELD_NUMBER: _ClassVar[int]
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    ACTION_IDS_FIELD_NUMBER: _ClassVar[int]
    episode_id: str
    decision_id: int
    actions: _containers.RepeatedCompositeFieldContainer[Action]
    action_ids: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, episode_id: _Optional[str] = ..., decision_id: _Optional[int] = ..., actions: _Optional[_Iterable[_Union[Action, _Mapping]]] = ..., action_ids: _Optional[_Iterable[int]] = ...) -> None: ...

class ObserveRequest(_message.Message):
    __slots__ = ("episode_id",)
    EPISODE_ID_FIELD_NUMBER: _ClassVar[int]
    episode_id: str
    def __init__(self, episode_id: _Optional[str] = ...) -> None: ...

class CloseRequest(_message.Message):
    __slots__ = ("episode_id",)
    EPISODE_ID_FIELD_NUMBER: _ClassVar[int]
    episode_id: str
    def __init__(self, episode_id: _Optional[str] = ...) -> None: ...

class CloseResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class EpisodeState(_message.Message):
    __slots__ = ("episode_id", "decision", "observation", "legal_actions", "results", "terminated", "truncated", "outcome", "reward", "action_space_size", "reward_side")
    EPISODE_ID_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    TERMINATED_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    REWARD_FIELD_NUMBER: _ClassVar[int]
    ACTION_SPACE_SIZE_FIELD_NUMBER: _ClassVar[int]
    REWARD_SIDE_FIELD_NUMBER: _ClassVar[int]
    episode_id: str
    decision: Decision
    observation: Observation
    legal_actions: _containers.RepeatedCompositeFieldContainer[LegalAction]
    results: _containers.RepeatedCompositeFieldContainer[ActionResult]
    terminated: bool
    truncated: bool
    outcome: Outcome
    reward: float
    action_space_size: int
    reward_side: str
    def __init__(self, episode_id: _Optional[str] = ..., decision: _Optional[_Union[Decision, _Mapping]] = ..., observation: _Optional[_Union[Observation, _Mapping]] = ..., legal_actions: _Optional[_Iterable[_Union[LegalAction, _Mapping]]] = ..., results: _Optional[_Iterable[_Union[ActionResult, _Mapping]]] = ..., terminated: _Optional[bool] = ..., truncated: _Optional[bool] = ..., outcome: _Optional[_Union[Outcome, _Mapping]] = ..., reward: _Optional[float] = ..., action_space_size: _Optional[int] = ..., reward_side: _Optional[str] = ...) -> None: ...

class Decision(_message.Message):
    __slots__ = ("decision_id", "actor_index", "actor_id", "round", "budget")
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    ACTOR_INDEX_FIELD_NUMBER: _ClassVar[int]
    ACTOR_ID_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    BUDGET_FIELD_NUMBER: _ClassVar[int]
    decision_id: int
    actor_index: int
    actor_id: str
    round: int
    budget: Budget
    def __init__(self, decision_id: _Optional[int] = ..., actor_index: _Optional[int] = ..., actor_id: _Optional[str] = ..., round: _Optional[int] = ..., budget: _Optional[_Union[Budget, _Mapping]] = ...) -> None: ...

class Budget(_message.Message):
    __slots__ = ("standard", "move", "swift", "full_round", "five_foot_step")
    STANDARD_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    SWIFT_FIELD_NUMBER: _ClassVar[int]
    FULL_ROUND_FIELD_NUMBER: _ClassVar[int]
    FIVE_FOOT_STEP_FIELD_NUMBER: _ClassVar[int]
    standard: bool
    move: bool
    swift: bool
    full_round: bool
    five_foot_step: bool
    def __init__(self, standard: _Optional[bool] = ..., move: _Optional[bool] = ..., swift: _Optional[bool] = ..., full_round: _Optional[bool] = ..., five_foot_step: _Optional[bool] = ...) -> None: ...

class Outcome(_message.Message):
    __slots__ = ("winner", "rounds", "truncated")
    WINNER_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    winner: str
    rounds: int
    truncated: bool
    def __init__(self, winner: _Optional[str] = ..., rounds: _Optional[int] = ..., truncated: _Optional[bool] = ...) -> None: ...

class Cell(_message.Message):
    __slots__ = ("row", "col")
    ROW_FIELD_NUMBER: _ClassVar[int]
    COL_FIELD_NUMBER: _ClassVar[int]
    row: int
    col: int
    def __init__(self, row: _Optional[int] = ..., col: _Optional[int] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("kind", "target", "destination", "weapon")
    KIND_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    DESTINATION_FIELD_NUMBER: _ClassVar[int]
    WEAPON_FIELD_NUMBER: _ClassVar[int]
    kind: ActionKind
    target: int
    destination: Cell
    weapon: int
    def __init__(self, kind: _Optional[_Union[ActionKind, str]] = ..., target: _Optional[int] = ..., destination: _Optional[_Union[Cell, _Mapping]] = ..., weapon: _Optional[int] = ...) -> None: ...

class LegalAction(_message.Message):
    __slots__ = ("id", "action", "label")
    ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    id: int
    action: Action
    label: str
    def __init__(self, id: _Optional[int] = ..., action: _Optional[_Union[Action, _Mapping]] = ..., label: _Optional[str] = ...) -> None: ...

class ActionResult(_message.Message):
    __slots__ = ("kind", "ok", "reason", "field")
    KIND_FIELD_NUMBER: _ClassVar[int]
    OK_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    FIELD_FIELD_NUMBER: _ClassVar[int]
    kind: ActionKind
    ok: bool
    reason: str
    field: str
    def __init__(self, kind: _Optional[_Union[ActionKind, str]] = ..., ok: _Optional[bool] = ..., reason: _Optional[str] = ..., field: _Optional[str] = ...) -> None: ...

class Observation(_message.Message):
    __slots__ = ("round", "acting_index", "acting_id", "budget", "combatants", "initiative_order", "json")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    ACTING_INDEX_FIELD_NUMBER: _ClassVar[int]
    ACTING_ID_FIELD_NUMBER: _ClassVar[int]
    BUDGET_FIELD_NUMBER: _ClassVar[int]
    COMBATANTS_FIELD_NUMBER: _ClassVar[int]
    INITIATIVE_ORDER_FIELD_NUMBER: _ClassVar[int]
    JSON_FIELD_NUMBER: _ClassVar[int]
    round: int
    acting_index: int
    acting_id: str
    budget: Budget
    combatants: _containers.RepeatedCompositeFieldContainer[CombatantState]
    initiative_order: _containers.RepeatedScalarFieldContainer[str]
    json: str
    def __init__(self, round: _Optional[int] = ..., acting_index: _Optional[int] = ..., acting_id: _Optional[str] = ..., budget: _Optional[_Union[Budget, _Mapping]] = ..., combatants: _Optional[_Iterable[_Union[CombatantState, _Mapping]]] = ..., initiative_order: _Optional[_Iterable[str]] = ..., json: _Optional[str] = ...) -> None: ...

class CombatantState(_message.Message):
    __slots__ = ("index", "id", "name", "side", "row", "col", "hp", "hp_max", "active", "dead", "dying", "disabled", "stabilized", "ac", "ac_touch", "ac_flat_footed", "aoo_remaining", "moved_this_turn", "conditions", "size")
    INDEX_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SIDE_FIELD_NUMBER: _ClassVar[int]
    ROW_FIELD_NUMBER: _ClassVar[int]
    COL_FIELD_NUMBER: _ClassVar[int]
    HP_FIELD_NUMBER: _ClassVar[int]
    HP_MAX_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_FIELD_NUMBER: _ClassVar[int]
    DEAD_FIELD_NUMBER: _ClassVar[int]
    DYING_FIELD_NUMBER: _ClassVar[int]
    DISABLED_FIELD_NUMBER: _ClassVar[int]
    STABILIZED_FIELD_NUMBER: _ClassVar[int]
    AC_FIELD_NUMBER: _ClassVar[int]
    AC_TOUCH_FIELD_NUMBER: _ClassVar[int]
    AC_FLAT_FOOTED_FIELD_NUMBER: _ClassVar[int]
    AOO_REMAINING_FIELD_NUMBER: _ClassVar[int]
    MOVED_THIS_TURN_FIELD_NUMBER: _ClassVar[int]
    CONDITIONS_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    index: int
    id: str
    name: str
    side: str
    row: int
    col: int
    hp: int
    hp_max: int
    active: bool
    dead: bool
    dying: bool
    disabled: bool
    stabilized: bool
    ac: int
    ac_touch: int
    ac_flat_footed: int
    aoo_remaining: int
    moved_this_turn: bool
    conditions: _containers.RepeatedScalarFieldContainer[str]
    size: str
    def __init__(self, index: _Optional[int] = ..., id: _Optional[str] = ..., name: _Optional[str] = ..., side: _Optional[str] = ..., row: _Optional[int] = ..., col: _Optional[int] = ..., hp: _Optional[int] = ..., hp_max: _Optional[int] = ..., active: _Optional[bool] = ..., dead: _Optional[bool] = ..., dying: _Optional[bool] = ..., disabled: _Optional[bool] = ..., stabilized: _Optional[bool] = ..., ac: _Optional[int] = ..., ac_touch: _Optional[int] = ..., ac_flat_footed: _Optional[int] = ..., aoo_remaining: _Optional[int] = ..., moved_this_turn: _Optional[bool] = ..., conditions: _Optional[_Iterable[str]] = ..., size: _Optional[str] = ...) -> None: ...
