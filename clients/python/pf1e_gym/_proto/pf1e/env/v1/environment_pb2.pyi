from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class DecisionKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DECISION_KIND_UNSPECIFIED: _ClassVar[DecisionKind]
    DECISION_KIND_TURN_ACTION: _ClassVar[DecisionKind]
    DECISION_KIND_ATTACK_OF_OPPORTUNITY: _ClassVar[DecisionKind]
    DECISION_KIND_READIED_TRIGGER: _ClassVar[DecisionKind]
    DECISION_KIND_STEP_UP: _ClassVar[DecisionKind]

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
    ACTION_KIND_MANEUVER: _ClassVar[ActionKind]
    ACTION_KIND_STAND_UP: _ClassVar[ActionKind]
    ACTION_KIND_DROP_PRONE: _ClassVar[ActionKind]
    ACTION_KIND_RETRIEVE_WEAPON: _ClassVar[ActionKind]
    ACTION_KIND_REPAIR_WEAPON: _ClassVar[ActionKind]
    ACTION_KIND_ACTIVATE_POWER_ATTACK: _ClassVar[ActionKind]
    ACTION_KIND_RUN: _ClassVar[ActionKind]
    ACTION_KIND_ATTACK_OF_OPPORTUNITY: _ClassVar[ActionKind]
    ACTION_KIND_DECLINE: _ClassVar[ActionKind]
    ACTION_KIND_TOTAL_DEFENSE: _ClassVar[ActionKind]
    ACTION_KIND_FIGHT_DEFENSIVELY: _ClassVar[ActionKind]
    ACTION_KIND_DELAY: _ClassVar[ActionKind]
    ACTION_KIND_READY: _ClassVar[ActionKind]
    ACTION_KIND_FIRE_READIED: _ClassVar[ActionKind]
    ACTION_KIND_CLEAVE: _ClassVar[ActionKind]
    ACTION_KIND_SPRING_ATTACK: _ClassVar[ActionKind]
    ACTION_KIND_SHOT_ON_THE_RUN: _ClassVar[ActionKind]
    ACTION_KIND_ACTIVATE_LUNGE: _ClassVar[ActionKind]
    ACTION_KIND_STAND_STILL: _ClassVar[ActionKind]
    ACTION_KIND_ACTIVATE_DEADLY_AIM: _ClassVar[ActionKind]
    ACTION_KIND_ACTIVATE_COMBAT_EXPERTISE: _ClassVar[ActionKind]
    ACTION_KIND_AID_ANOTHER: _ClassVar[ActionKind]
    ACTION_KIND_COUP_DE_GRACE: _ClassVar[ActionKind]
    ACTION_KIND_DRAW_WEAPON: _ClassVar[ActionKind]
    ACTION_KIND_SHEATHE_WEAPON: _ClassVar[ActionKind]
    ACTION_KIND_CAST_SPELL: _ClassVar[ActionKind]
    ACTION_KIND_CAST_DEFENSIVELY: _ClassVar[ActionKind]
    ACTION_KIND_ACTIVATE_METAMAGIC: _ClassVar[ActionKind]

class Metamagic(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    METAMAGIC_UNSPECIFIED: _ClassVar[Metamagic]
    METAMAGIC_EMPOWER: _ClassVar[Metamagic]
    METAMAGIC_EXTEND: _ClassVar[Metamagic]
    METAMAGIC_HEIGHTEN: _ClassVar[Metamagic]
    METAMAGIC_MAXIMIZE: _ClassVar[Metamagic]
    METAMAGIC_QUICKEN: _ClassVar[Metamagic]
    METAMAGIC_SILENT: _ClassVar[Metamagic]
    METAMAGIC_STILL: _ClassVar[Metamagic]

class AidMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    AID_MODE_UNSPECIFIED: _ClassVar[AidMode]
    AID_MODE_ATTACK: _ClassVar[AidMode]
    AID_MODE_AC: _ClassVar[AidMode]

class Direction(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DIRECTION_UNSPECIFIED: _ClassVar[Direction]
    DIRECTION_N: _ClassVar[Direction]
    DIRECTION_NE: _ClassVar[Direction]
    DIRECTION_E: _ClassVar[Direction]
    DIRECTION_SE: _ClassVar[Direction]
    DIRECTION_S: _ClassVar[Direction]
    DIRECTION_SW: _ClassVar[Direction]
    DIRECTION_W: _ClassVar[Direction]
    DIRECTION_NW: _ClassVar[Direction]

class ManeuverType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MANEUVER_TYPE_UNSPECIFIED: _ClassVar[ManeuverType]
    MANEUVER_TYPE_TRIP: _ClassVar[ManeuverType]
    MANEUVER_TYPE_DISARM: _ClassVar[ManeuverType]
    MANEUVER_TYPE_BULL_RUSH: _ClassVar[ManeuverType]
    MANEUVER_TYPE_SUNDER: _ClassVar[ManeuverType]
    MANEUVER_TYPE_GRAPPLE: _ClassVar[ManeuverType]
    MANEUVER_TYPE_PIN: _ClassVar[ManeuverType]
    MANEUVER_TYPE_ESCAPE: _ClassVar[ManeuverType]
    MANEUVER_TYPE_OVERRUN: _ClassVar[ManeuverType]
    MANEUVER_TYPE_DIRTY_TRICK_BLINDED: _ClassVar[ManeuverType]
    MANEUVER_TYPE_DIRTY_TRICK_DAZZLED: _ClassVar[ManeuverType]
    MANEUVER_TYPE_DIRTY_TRICK_DEAFENED: _ClassVar[ManeuverType]
    MANEUVER_TYPE_DIRTY_TRICK_ENTANGLED: _ClassVar[ManeuverType]
    MANEUVER_TYPE_DIRTY_TRICK_SHAKEN: _ClassVar[ManeuverType]
    MANEUVER_TYPE_DIRTY_TRICK_SICKENED: _ClassVar[ManeuverType]
    MANEUVER_TYPE_STEAL: _ClassVar[ManeuverType]
    MANEUVER_TYPE_REPOSITION: _ClassVar[ManeuverType]
    MANEUVER_TYPE_DRAG: _ClassVar[ManeuverType]

class ReadyTriggerEvent(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    READY_TRIGGER_EVENT_UNSPECIFIED: _ClassVar[ReadyTriggerEvent]
    READY_TRIGGER_EVENT_ENEMY_ENTERS_REACH: _ClassVar[ReadyTriggerEvent]
    READY_TRIGGER_EVENT_ENEMY_WITHIN: _ClassVar[ReadyTriggerEvent]
    READY_TRIGGER_EVENT_ENEMY_ATTACKS: _ClassVar[ReadyTriggerEvent]
    READY_TRIGGER_EVENT_ALLY_ACTS: _ClassVar[ReadyTriggerEvent]

class ResultCode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RESULT_CODE_UNSPECIFIED: _ClassVar[ResultCode]
    RESULT_CODE_OK: _ClassVar[ResultCode]
    RESULT_CODE_UNKNOWN: _ClassVar[ResultCode]
    RESULT_CODE_MISSING_TARGET: _ClassVar[ResultCode]
    RESULT_CODE_INVALID_TARGET: _ClassVar[ResultCode]
    RESULT_CODE_WEAPON_UNAVAILABLE: _ClassVar[ResultCode]
    RESULT_CODE_NO_WEAPON: _ClassVar[ResultCode]
    RESULT_CODE_NO_LINE_OF_EFFECT: _ClassVar[ResultCode]
    RESULT_CODE_OUT_OF_RANGE: _ClassVar[ResultCode]
    RESULT_CODE_OUT_OF_AMMUNITION: _ClassVar[ResultCode]
    RESULT_CODE_NO_CHARGE_PATH: _ClassVar[ResultCode]
    RESULT_CODE_UNREACHABLE_DESTINATION: _ClassVar[ResultCode]
    RESULT_CODE_INVALID_DESTINATION: _ClassVar[ResultCode]
    RESULT_CODE_ALREADY_MOVED: _ClassVar[ResultCode]
    RESULT_CODE_DOWNGRADED_ACTION_ECONOMY: _ClassVar[ResultCode]
    RESULT_CODE_DOWNGRADED_DISABLED: _ClassVar[ResultCode]
    RESULT_CODE_CANNOT_ACT: _ClassVar[ResultCode]
    RESULT_CODE_TURN_ENDED: _ClassVar[ResultCode]
    RESULT_CODE_PREVENTED_BY_CONDITION: _ClassVar[ResultCode]
    RESULT_CODE_NOT_PRONE: _ClassVar[ResultCode]
    RESULT_CODE_ALREADY_PRONE: _ClassVar[ResultCode]
    RESULT_CODE_NO_POWER_ATTACK: _ClassVar[ResultCode]
    RESULT_CODE_TARGET_TOO_LARGE: _ClassVar[ResultCode]
    RESULT_CODE_NOT_GRAPPLED: _ClassVar[ResultCode]
    RESULT_CODE_MISSING_MANEUVER: _ClassVar[ResultCode]
    RESULT_CODE_CANNOT_RUN: _ClassVar[ResultCode]
    RESULT_CODE_WRONG_DECISION_KIND: _ClassVar[ResultCode]
    RESULT_CODE_DECISION_ANSWERED: _ClassVar[ResultCode]
    RESULT_CODE_FIGHTING_DEFENSIVELY: _ClassVar[ResultCode]
    RESULT_CODE_ALREADY_DELAYED: _ClassVar[ResultCode]
    RESULT_CODE_ALREADY_ACTED: _ClassVar[ResultCode]
    RESULT_CODE_INVALID_DELAY: _ClassVar[ResultCode]
    RESULT_CODE_INVALID_READY: _ClassVar[ResultCode]
    RESULT_CODE_DOWNGRADED_SURPRISE: _ClassVar[ResultCode]
    RESULT_CODE_DELAYED: _ClassVar[ResultCode]
    RESULT_CODE_READY: _ClassVar[ResultCode]
    RESULT_CODE_DOWNGRADED_STAGGERED: _ClassVar[ResultCode]
    RESULT_CODE_DOWNGRADED_NAUSEATED: _ClassVar[ResultCode]
    RESULT_CODE_MISSING_FEAT: _ClassVar[ResultCode]
    RESULT_CODE_ADJACENT_AT_START: _ClassVar[ResultCode]
    RESULT_CODE_STOOD_STILL: _ClassVar[ResultCode]
    RESULT_CODE_FEAT_NOT_APPLICABLE: _ClassVar[ResultCode]
    RESULT_CODE_NO_DEADLY_AIM: _ClassVar[ResultCode]
    RESULT_CODE_NO_COMBAT_EXPERTISE: _ClassVar[ResultCode]
    RESULT_CODE_NOT_ENGAGED: _ClassVar[ResultCode]
    RESULT_CODE_NOT_HELPLESS: _ClassVar[ResultCode]
    RESULT_CODE_IMMUNE_TO_CRITICAL_HITS: _ClassVar[ResultCode]
    RESULT_CODE_HANDS_FULL: _ClassVar[ResultCode]
    RESULT_CODE_TARGET_CONCEALED: _ClassVar[ResultCode]
    RESULT_CODE_INVALID_DIRECTION: _ClassVar[ResultCode]
    RESULT_CODE_MISSING_SPELL: _ClassVar[ResultCode]
    RESULT_CODE_UNKNOWN_SPELL: _ClassVar[ResultCode]
    RESULT_CODE_DOWNGRADED_CAST_TIME: _ClassVar[ResultCode]
    RESULT_CODE_NO_SLOT: _ClassVar[ResultCode]
    RESULT_CODE_NO_SPELLS: _ClassVar[ResultCode]
    RESULT_CODE_ALREADY_DECLARED: _ClassVar[ResultCode]
    RESULT_CODE_METAMAGIC_NOT_APPLICABLE: _ClassVar[ResultCode]

class EvaluateMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EVALUATE_MODE_UNSPECIFIED: _ClassVar[EvaluateMode]
    EVALUATE_MODE_REPORT: _ClassVar[EvaluateMode]
    EVALUATE_MODE_PARTIAL: _ClassVar[EvaluateMode]
    EVALUATE_MODE_ASSEMBLE: _ClassVar[EvaluateMode]
    EVALUATE_MODE_PLAN: _ClassVar[EvaluateMode]
DECISION_KIND_UNSPECIFIED: DecisionKind
DECISION_KIND_TURN_ACTION: DecisionKind
DECISION_KIND_ATTACK_OF_OPPORTUNITY: DecisionKind
DECISION_KIND_READIED_TRIGGER: DecisionKind
DECISION_KIND_STEP_UP: DecisionKind
ACTION_KIND_UNSPECIFIED: ActionKind
ACTION_KIND_END_TURN: ActionKind
ACTION_KIND_ATTACK: ActionKind
ACTION_KIND_FULL_ATTACK: ActionKind
ACTION_KIND_CHARGE: ActionKind
ACTION_KIND_MOVE: ActionKind
ACTION_KIND_FIVE_FOOT_STEP: ActionKind
ACTION_KIND_WITHDRAW: ActionKind
ACTION_KIND_MANEUVER: ActionKind
ACTION_KIND_STAND_UP: ActionKind
ACTION_KIND_DROP_PRONE: ActionKind
ACTION_KIND_RETRIEVE_WEAPON: ActionKind
ACTION_KIND_REPAIR_WEAPON: ActionKind
ACTION_KIND_ACTIVATE_POWER_ATTACK: ActionKind
ACTION_KIND_RUN: ActionKind
ACTION_KIND_ATTACK_OF_OPPORTUNITY: ActionKind
ACTION_KIND_DECLINE: ActionKind
ACTION_KIND_TOTAL_DEFENSE: ActionKind
ACTION_KIND_FIGHT_DEFENSIVELY: ActionKind
ACTION_KIND_DELAY: ActionKind
ACTION_KIND_READY: ActionKind
ACTION_KIND_FIRE_READIED: ActionKind
ACTION_KIND_CLEAVE: ActionKind
ACTION_KIND_SPRING_ATTACK: ActionKind
ACTION_KIND_SHOT_ON_THE_RUN: ActionKind
ACTION_KIND_ACTIVATE_LUNGE: ActionKind
ACTION_KIND_STAND_STILL: ActionKind
ACTION_KIND_ACTIVATE_DEADLY_AIM: ActionKind
ACTION_KIND_ACTIVATE_COMBAT_EXPERTISE: ActionKind
ACTION_KIND_AID_ANOTHER: ActionKind
ACTION_KIND_COUP_DE_GRACE: ActionKind
ACTION_KIND_DRAW_WEAPON: ActionKind
ACTION_KIND_SHEATHE_WEAPON: ActionKind
ACTION_KIND_CAST_SPELL: ActionKind
ACTION_KIND_CAST_DEFENSIVELY: ActionKind
ACTION_KIND_ACTIVATE_METAMAGIC: ActionKind
METAMAGIC_UNSPECIFIED: Metamagic
METAMAGIC_EMPOWER: Metamagic
METAMAGIC_EXTEND: Metamagic
METAMAGIC_HEIGHTEN: Metamagic
METAMAGIC_MAXIMIZE: Metamagic
METAMAGIC_QUICKEN: Metamagic
METAMAGIC_SILENT: Metamagic
METAMAGIC_STILL: Metamagic
AID_MODE_UNSPECIFIED: AidMode
AID_MODE_ATTACK: AidMode
AID_MODE_AC: AidMode
DIRECTION_UNSPECIFIED: Direction
DIRECTION_N: Direction
DIRECTION_NE: Direction
DIRECTION_E: Direction
DIRECTION_SE: Direction
DIRECTION_S: Direction
DIRECTION_SW: Direction
DIRECTION_W: Direction
DIRECTION_NW: Direction
MANEUVER_TYPE_UNSPECIFIED: ManeuverType
MANEUVER_TYPE_TRIP: ManeuverType
MANEUVER_TYPE_DISARM: ManeuverType
MANEUVER_TYPE_BULL_RUSH: ManeuverType
MANEUVER_TYPE_SUNDER: ManeuverType
MANEUVER_TYPE_GRAPPLE: ManeuverType
MANEUVER_TYPE_PIN: ManeuverType
MANEUVER_TYPE_ESCAPE: ManeuverType
MANEUVER_TYPE_OVERRUN: ManeuverType
MANEUVER_TYPE_DIRTY_TRICK_BLINDED: ManeuverType
MANEUVER_TYPE_DIRTY_TRICK_DAZZLED: ManeuverType
MANEUVER_TYPE_DIRTY_TRICK_DEAFENED: ManeuverType
MANEUVER_TYPE_DIRTY_TRICK_ENTANGLED: ManeuverType
MANEUVER_TYPE_DIRTY_TRICK_SHAKEN: ManeuverType
MANEUVER_TYPE_DIRTY_TRICK_SICKENED: ManeuverType
MANEUVER_TYPE_STEAL: ManeuverType
MANEUVER_TYPE_REPOSITION: ManeuverType
MANEUVER_TYPE_DRAG: ManeuverType
READY_TRIGGER_EVENT_UNSPECIFIED: ReadyTriggerEvent
READY_TRIGGER_EVENT_ENEMY_ENTERS_REACH: ReadyTriggerEvent
READY_TRIGGER_EVENT_ENEMY_WITHIN: ReadyTriggerEvent
READY_TRIGGER_EVENT_ENEMY_ATTACKS: ReadyTriggerEvent
READY_TRIGGER_EVENT_ALLY_ACTS: ReadyTriggerEvent
RESULT_CODE_UNSPECIFIED: ResultCode
RESULT_CODE_OK: ResultCode
RESULT_CODE_UNKNOWN: ResultCode
RESULT_CODE_MISSING_TARGET: ResultCode
RESULT_CODE_INVALID_TARGET: ResultCode
RESULT_CODE_WEAPON_UNAVAILABLE: ResultCode
RESULT_CODE_NO_WEAPON: ResultCode
RESULT_CODE_NO_LINE_OF_EFFECT: ResultCode
RESULT_CODE_OUT_OF_RANGE: ResultCode
RESULT_CODE_OUT_OF_AMMUNITION: ResultCode
RESULT_CODE_NO_CHARGE_PATH: ResultCode
RESULT_CODE_UNREACHABLE_DESTINATION: ResultCode
RESULT_CODE_INVALID_DESTINATION: ResultCode
RESULT_CODE_ALREADY_MOVED: ResultCode
RESULT_CODE_DOWNGRADED_ACTION_ECONOMY: ResultCode
RESULT_CODE_DOWNGRADED_DISABLED: ResultCode
RESULT_CODE_CANNOT_ACT: ResultCode
RESULT_CODE_TURN_ENDED: ResultCode
RESULT_CODE_PREVENTED_BY_CONDITION: ResultCode
RESULT_CODE_NOT_PRONE: ResultCode
RESULT_CODE_ALREADY_PRONE: ResultCode
RESULT_CODE_NO_POWER_ATTACK: ResultCode
RESULT_CODE_TARGET_TOO_LARGE: ResultCode
RESULT_CODE_NOT_GRAPPLED: ResultCode
RESULT_CODE_MISSING_MANEUVER: ResultCode
RESULT_CODE_CANNOT_RUN: ResultCode
RESULT_CODE_WRONG_DECISION_KIND: ResultCode
RESULT_CODE_DECISION_ANSWERED: ResultCode
RESULT_CODE_FIGHTING_DEFENSIVELY: ResultCode
RESULT_CODE_ALREADY_DELAYED: ResultCode
RESULT_CODE_ALREADY_ACTED: ResultCode
RESULT_CODE_INVALID_DELAY: ResultCode
RESULT_CODE_INVALID_READY: ResultCode
RESULT_CODE_DOWNGRADED_SURPRISE: ResultCode
RESULT_CODE_DELAYED: ResultCode
RESULT_CODE_READY: ResultCode
RESULT_CODE_DOWNGRADED_STAGGERED: ResultCode
RESULT_CODE_DOWNGRADED_NAUSEATED: ResultCode
RESULT_CODE_MISSING_FEAT: ResultCode
RESULT_CODE_ADJACENT_AT_START: ResultCode
RESULT_CODE_STOOD_STILL: ResultCode
RESULT_CODE_FEAT_NOT_APPLICABLE: ResultCode
RESULT_CODE_NO_DEADLY_AIM: ResultCode
RESULT_CODE_NO_COMBAT_EXPERTISE: ResultCode
RESULT_CODE_NOT_ENGAGED: ResultCode
RESULT_CODE_NOT_HELPLESS: ResultCode
RESULT_CODE_IMMUNE_TO_CRITICAL_HITS: ResultCode
RESULT_CODE_HANDS_FULL: ResultCode
RESULT_CODE_TARGET_CONCEALED: ResultCode
RESULT_CODE_INVALID_DIRECTION: ResultCode
RESULT_CODE_MISSING_SPELL: ResultCode
RESULT_CODE_UNKNOWN_SPELL: ResultCode
RESULT_CODE_DOWNGRADED_CAST_TIME: ResultCode
RESULT_CODE_NO_SLOT: ResultCode
RESULT_CODE_NO_SPELLS: ResultCode
RESULT_CODE_ALREADY_DECLARED: ResultCode
RESULT_CODE_METAMAGIC_NOT_APPLICABLE: ResultCode
EVALUATE_MODE_UNSPECIFIED: EvaluateMode
EVALUATE_MODE_REPORT: EvaluateMode
EVALUATE_MODE_PARTIAL: EvaluateMode
EVALUATE_MODE_ASSEMBLE: EvaluateMode
EVALUATE_MODE_PLAN: EvaluateMode

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
    __slots__ = ("scenario", "map", "sides", "combatants", "action_space_size", "rng_version", "engine_version", "round_cap", "simple_monster_death", "mask_polarity", "protocol", "observation_schema", "action_blocks", "reward_components", "capabilities", "rules_data_version", "max_batch_items", "action_json_schema", "plan_json_schema", "tactics_json_schema")
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
    OBSERVATION_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    ACTION_BLOCKS_FIELD_NUMBER: _ClassVar[int]
    REWARD_COMPONENTS_FIELD_NUMBER: _ClassVar[int]
    CAPABILITIES_FIELD_NUMBER: _ClassVar[int]
    RULES_DATA_VERSION_FIELD_NUMBER: _ClassVar[int]
    MAX_BATCH_ITEMS_FIELD_NUMBER: _ClassVar[int]
    ACTION_JSON_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    PLAN_JSON_SCHEMA_FIELD_NUMBER: _ClassVar[int]
    TACTICS_JSON_SCHEMA_FIELD_NUMBER: _ClassVar[int]
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
    observation_schema: ObservationSchema
    action_blocks: _containers.RepeatedCompositeFieldContainer[ActionBlock]
    reward_components: _containers.RepeatedScalarFieldContainer[str]
    capabilities: Capabilities
    rules_data_version: str
    max_batch_items: int
    action_json_schema: str
    plan_json_schema: str
    tactics_json_schema: str
    def __init__(self, scenario: _Optional[str] = ..., map: _Optional[_Union[MapInfo, _Mapping]] = ..., sides: _Optional[_Iterable[str]] = ..., combatants: _Optional[_Iterable[_Union[CombatantInfo, _Mapping]]] = ..., action_space_size: _Optional[int] = ..., rng_version: _Optional[str] = ..., engine_version: _Optional[str] = ..., round_cap: _Optional[int] = ..., simple_monster_death: _Optional[bool] = ..., mask_polarity: _Optional[str] = ..., protocol: _Optional[str] = ..., observation_schema: _Optional[_Union[ObservationSchema, _Mapping]] = ..., action_blocks: _Optional[_Iterable[_Union[ActionBlock, _Mapping]]] = ..., reward_components: _Optional[_Iterable[str]] = ..., capabilities: _Optional[_Union[Capabilities, _Mapping]] = ..., rules_data_version: _Optional[str] = ..., max_batch_items: _Optional[int] = ..., action_json_schema: _Optional[str] = ..., plan_json_schema: _Optional[str] = ..., tactics_json_schema: _Optional[str] = ...) -> None: ...

class ObservationSchema(_message.Message):
    __slots__ = ("plane_names", "plane_shape", "feature_names", "feature_shape", "plane_divisors", "terrain_plane_count", "terrain_planes", "feature_low", "feature_high", "plane_low", "plane_high", "weapon_slots")
    PLANE_NAMES_FIELD_NUMBER: _ClassVar[int]
    PLANE_SHAPE_FIELD_NUMBER: _ClassVar[int]
    FEATURE_NAMES_FIELD_NUMBER: _ClassVar[int]
    FEATURE_SHAPE_FIELD_NUMBER: _ClassVar[int]
    PLANE_DIVISORS_FIELD_NUMBER: _ClassVar[int]
    TERRAIN_PLANE_COUNT_FIELD_NUMBER: _ClassVar[int]
    TERRAIN_PLANES_FIELD_NUMBER: _ClassVar[int]
    FEATURE_LOW_FIELD_NUMBER: _ClassVar[int]
    FEATURE_HIGH_FIELD_NUMBER: _ClassVar[int]
    PLANE_LOW_FIELD_NUMBER: _ClassVar[int]
    PLANE_HIGH_FIELD_NUMBER: _ClassVar[int]
    WEAPON_SLOTS_FIELD_NUMBER: _ClassVar[int]
    plane_names: _containers.RepeatedScalarFieldContainer[str]
    plane_shape: _containers.RepeatedScalarFieldContainer[int]
    feature_names: _containers.RepeatedScalarFieldContainer[str]
    feature_shape: _containers.RepeatedScalarFieldContainer[int]
    plane_divisors: _containers.RepeatedScalarFieldContainer[int]
    terrain_plane_count: int
    terrain_planes: bytes
    feature_low: _containers.RepeatedScalarFieldContainer[float]
    feature_high: _containers.RepeatedScalarFieldContainer[float]
    plane_low: _containers.RepeatedScalarFieldContainer[float]
    plane_high: _containers.RepeatedScalarFieldContainer[float]
    weapon_slots: int
    def __init__(self, plane_names: _Optional[_Iterable[str]] = ..., plane_shape: _Optional[_Iterable[int]] = ..., feature_names: _Optional[_Iterable[str]] = ..., feature_shape: _Optional[_Iterable[int]] = ..., plane_divisors: _Optional[_Iterable[int]] = ..., terrain_plane_count: _Optional[int] = ..., terrain_planes: _Optional[bytes] = ..., feature_low: _Optional[_Iterable[float]] = ..., feature_high: _Optional[_Iterable[float]] = ..., plane_low: _Optional[_Iterable[float]] = ..., plane_high: _Optional[_Iterable[float]] = ..., weapon_slots: _Optional[int] = ...) -> None: ...

class ActionBlock(_message.Message):
    __slots__ = ("name", "first_id", "size", "axes", "axis_sizes", "last_axis_values")
    NAME_FIELD_NUMBER: _ClassVar[int]
    FIRST_ID_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    AXES_FIELD_NUMBER: _ClassVar[int]
    AXIS_SIZES_FIELD_NUMBER: _ClassVar[int]
    LAST_AXIS_VALUES_FIELD_NUMBER: _ClassVar[int]
    name: str
    first_id: int
    size: int
    axes: _containers.RepeatedScalarFieldContainer[str]
    axis_sizes: _containers.RepeatedScalarFieldContainer[int]
    last_axis_values: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, name: _Optional[str] = ..., first_id: _Optional[int] = ..., size: _Optional[int] = ..., axes: _Optional[_Iterable[str]] = ..., axis_sizes: _Optional[_Iterable[int]] = ..., last_axis_values: _Optional[_Iterable[str]] = ...) -> None: ...

class Capabilities(_message.Message):
    __slots__ = ("json_observation", "tensor_observation", "snapshots", "batch", "stream", "validate", "shaped_rewards", "evaluate", "columnar_batch", "batch_close", "columnar_decisions", "compact_columns", "columnar_decision_kinds", "transcripts", "text_observation", "explain", "structured_actions", "tactics", "text_languages", "round_discount", "action_block_axes", "feature_bounds", "episode_ownership", "work_budget", "authenticated_snapshots", "text_modes")
    JSON_OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    TENSOR_OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOTS_FIELD_NUMBER: _ClassVar[int]
    BATCH_FIELD_NUMBER: _ClassVar[int]
    STREAM_FIELD_NUMBER: _ClassVar[int]
    VALIDATE_FIELD_NUMBER: _ClassVar[int]
    SHAPED_REWARDS_FIELD_NUMBER: _ClassVar[int]
    EVALUATE_FIELD_NUMBER: _ClassVar[int]
    COLUMNAR_BATCH_FIELD_NUMBER: _ClassVar[int]
    BATCH_CLOSE_FIELD_NUMBER: _ClassVar[int]
    COLUMNAR_DECISIONS_FIELD_NUMBER: _ClassVar[int]
    COMPACT_COLUMNS_FIELD_NUMBER: _ClassVar[int]
    COLUMNAR_DECISION_KINDS_FIELD_NUMBER: _ClassVar[int]
    TRANSCRIPTS_FIELD_NUMBER: _ClassVar[int]
    TEXT_OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    EXPLAIN_FIELD_NUMBER: _ClassVar[int]
    STRUCTURED_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    TACTICS_FIELD_NUMBER: _ClassVar[int]
    TEXT_LANGUAGES_FIELD_NUMBER: _ClassVar[int]
    ROUND_DISCOUNT_FIELD_NUMBER: _ClassVar[int]
    ACTION_BLOCK_AXES_FIELD_NUMBER: _ClassVar[int]
    FEATURE_BOUNDS_FIELD_NUMBER: _ClassVar[int]
    EPISODE_OWNERSHIP_FIELD_NUMBER: _ClassVar[int]
    WORK_BUDGET_FIELD_NUMBER: _ClassVar[int]
    AUTHENTICATED_SNAPSHOTS_FIELD_NUMBER: _ClassVar[int]
    TEXT_MODES_FIELD_NUMBER: _ClassVar[int]
    json_observation: bool
    tensor_observation: bool
    snapshots: bool
    batch: bool
    stream: bool
    validate: bool
    shaped_rewards: bool
    evaluate: bool
    columnar_batch: bool
    batch_close: bool
    columnar_decisions: bool
    compact_columns: bool
    columnar_decision_kinds: bool
    transcripts: bool
    text_observation: bool
    explain: bool
    structured_actions: bool
    tactics: bool
    text_languages: _containers.RepeatedScalarFieldContainer[str]
    round_discount: bool
    action_block_axes: bool
    feature_bounds: bool
    episode_ownership: bool
    work_budget: bool
    authenticated_snapshots: bool
    text_modes: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, json_observation: _Optional[bool] = ..., tensor_observation: _Optional[bool] = ..., snapshots: _Optional[bool] = ..., batch: _Optional[bool] = ..., stream: _Optional[bool] = ..., validate: _Optional[bool] = ..., shaped_rewards: _Optional[bool] = ..., evaluate: _Optional[bool] = ..., columnar_batch: _Optional[bool] = ..., batch_close: _Optional[bool] = ..., columnar_decisions: _Optional[bool] = ..., compact_columns: _Optional[bool] = ..., columnar_decision_kinds: _Optional[bool] = ..., transcripts: _Optional[bool] = ..., text_observation: _Optional[bool] = ..., explain: _Optional[bool] = ..., structured_actions: _Optional[bool] = ..., tactics: _Optional[bool] = ..., text_languages: _Optional[_Iterable[str]] = ..., round_discount: _Optional[bool] = ..., action_block_axes: _Optional[bool] = ..., feature_bounds: _Optional[bool] = ..., episode_ownership: _Optional[bool] = ..., work_budget: _Optional[bool] = ..., authenticated_snapshots: _Optional[bool] = ..., text_modes: _Optional[_Iterable[str]] = ...) -> None: ...

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
    __slots__ = ("index", "id", "name", "side", "player_character", "size", "spells", "summon_slot", "summoned_by", "summoned_by_spell")
    INDEX_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SIDE_FIELD_NUMBER: _ClassVar[int]
    PLAYER_CHARACTER_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    SPELLS_FIELD_NUMBER: _ClassVar[int]
    SUMMON_SLOT_FIELD_NUMBER: _ClassVar[int]
    SUMMONED_BY_FIELD_NUMBER: _ClassVar[int]
    SUMMONED_BY_SPELL_FIELD_NUMBER: _ClassVar[int]
    index: int
    id: str
    name: str
    side: str
    player_character: bool
    size: str
    spells: _containers.RepeatedCompositeFieldContainer[SpellInfo]
    summon_slot: bool
    summoned_by: int
    summoned_by_spell: int
    def __init__(self, index: _Optional[int] = ..., id: _Optional[str] = ..., name: _Optional[str] = ..., side: _Optional[str] = ..., player_character: _Optional[bool] = ..., size: _Optional[str] = ..., spells: _Optional[_Iterable[_Union[SpellInfo, _Mapping]]] = ..., summon_slot: _Optional[bool] = ..., summoned_by: _Optional[int] = ..., summoned_by_spell: _Optional[int] = ...) -> None: ...

class SpellInfo(_message.Message):
    __slots__ = ("index", "name", "level", "targeting", "area", "range", "range_ft", "cast_time", "attack", "spell_like", "dc", "caster_level", "uses")
    INDEX_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    TARGETING_FIELD_NUMBER: _ClassVar[int]
    AREA_FIELD_NUMBER: _ClassVar[int]
    RANGE_FIELD_NUMBER: _ClassVar[int]
    RANGE_FT_FIELD_NUMBER: _ClassVar[int]
    CAST_TIME_FIELD_NUMBER: _ClassVar[int]
    ATTACK_FIELD_NUMBER: _ClassVar[int]
    SPELL_LIKE_FIELD_NUMBER: _ClassVar[int]
    DC_FIELD_NUMBER: _ClassVar[int]
    CASTER_LEVEL_FIELD_NUMBER: _ClassVar[int]
    USES_FIELD_NUMBER: _ClassVar[int]
    index: int
    name: str
    level: int
    targeting: str
    area: SpellArea
    range: str
    range_ft: int
    cast_time: str
    attack: str
    spell_like: bool
    dc: int
    caster_level: int
    uses: str
    def __init__(self, index: _Optional[int] = ..., name: _Optional[str] = ..., level: _Optional[int] = ..., targeting: _Optional[str] = ..., area: _Optional[_Union[SpellArea, _Mapping]] = ..., range: _Optional[str] = ..., range_ft: _Optional[int] = ..., cast_time: _Optional[str] = ..., attack: _Optional[str] = ..., spell_like: _Optional[bool] = ..., dc: _Optional[int] = ..., caster_level: _Optional[int] = ..., uses: _Optional[str] = ...) -> None: ...

class SpellArea(_message.Message):
    __slots__ = ("shape", "size_ft", "origin", "affects")
    SHAPE_FIELD_NUMBER: _ClassVar[int]
    SIZE_FT_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    AFFECTS_FIELD_NUMBER: _ClassVar[int]
    shape: str
    size_ft: int
    origin: str
    affects: str
    def __init__(self, shape: _Optional[str] = ..., size_ft: _Optional[int] = ..., origin: _Optional[str] = ..., affects: _Optional[str] = ...) -> None: ...

class Controlled(_message.Message):
    __slots__ = ("sides", "combatant_ids")
    SIDES_FIELD_NUMBER: _ClassVar[int]
    COMBATANT_IDS_FIELD_NUMBER: _ClassVar[int]
    sides: _containers.RepeatedScalarFieldContainer[str]
    combatant_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, sides: _Optional[_Iterable[str]] = ..., combatant_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class ResetRequest(_message.Message):
    __slots__ = ("scenario", "seed", "controlled", "observation", "reward", "tactics")
    class TacticsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    SCENARIO_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    CONTROLLED_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    REWARD_FIELD_NUMBER: _ClassVar[int]
    TACTICS_FIELD_NUMBER: _ClassVar[int]
    scenario: Scenario
    seed: int
    controlled: Controlled
    observation: ObservationOptions
    reward: RewardOptions
    tactics: _containers.ScalarMap[str, str]
    def __init__(self, scenario: _Optional[_Union[Scenario, _Mapping]] = ..., seed: _Optional[int] = ..., controlled: _Optional[_Union[Controlled, _Mapping]] = ..., observation: _Optional[_Union[ObservationOptions, _Mapping]] = ..., reward: _Optional[_Union[RewardOptions, _Mapping]] = ..., tactics: _Optional[_Mapping[str, str]] = ...) -> None: ...

class ObservationOptions(_message.Message):
    __slots__ = ("json", "tensors", "legal_actions", "typed", "action_mask", "text", "lang", "text_mode", "text_token_budget", "text_chars_per_token")
    JSON_FIELD_NUMBER: _ClassVar[int]
    TENSORS_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    TYPED_FIELD_NUMBER: _ClassVar[int]
    ACTION_MASK_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    LANG_FIELD_NUMBER: _ClassVar[int]
    TEXT_MODE_FIELD_NUMBER: _ClassVar[int]
    TEXT_TOKEN_BUDGET_FIELD_NUMBER: _ClassVar[int]
    TEXT_CHARS_PER_TOKEN_FIELD_NUMBER: _ClassVar[int]
    json: bool
    tensors: bool
    legal_actions: bool
    typed: bool
    action_mask: bool
    text: bool
    lang: str
    text_mode: str
    text_token_budget: int
    text_chars_per_token: float
    def __init__(self, json: _Optional[bool] = ..., tensors: _Optional[bool] = ..., legal_actions: _Optional[bool] = ..., typed: _Optional[bool] = ..., action_mask: _Optional[bool] = ..., text: _Optional[bool] = ..., lang: _Optional[str] = ..., text_mode: _Optional[str] = ..., text_token_budget: _Optional[int] = ..., text_chars_per_token: _Optional[float] = ...) -> None: ...

class RewardOptions(_message.Message):
    __slots__ = ("shaped", "damage_weight", "kill_weight", "round_discount")
    SHAPED_FIELD_NUMBER: _ClassVar[int]
    DAMAGE_WEIGHT_FIELD_NUMBER: _ClassVar[int]
    KILL_WEIGHT_FIELD_NUMBER: _ClassVar[int]
    ROUND_DISCOUNT_FIELD_NUMBER: _ClassVar[int]
    shaped: bool
    damage_weight: float
    kill_weight: float
    round_discount: float
    def __init__(self, shaped: _Optional[bool] = ..., damage_weight: _Optional[float] = ..., kill_weight: _Optional[float] = ..., round_discount: _Optional[float] = ...) -> None: ...

class StepRequest(_message.Message):
    __slots__ = ("episode_id", "decision_id", "actions", "action_ids", "action_labels", "actions_json")
    EPISODE_ID_FIELD_NUMBER: _ClassVar[int]
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    ACTION_IDS_FIELD_NUMBER: _ClassVar[int]
    ACTION_LABELS_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_JSON_FIELD_NUMBER: _ClassVar[int]
    episode_id: str
    decision_id: int
    actions: _containers.RepeatedCompositeFieldContainer[Action]
    action_ids: _containers.RepeatedScalarFieldContainer[int]
    action_labels: _containers.RepeatedScalarFieldContainer[str]
    actions_json: str
    def __init__(self, episode_id: _Optional[str] = ..., decision_id: _Optional[int] = ..., actions: _Optional[_Iterable[_Union[Action, _Mapping]]] = ..., action_ids: _Optional[_Iterable[int]] = ..., action_labels: _Optional[_Iterable[str]] = ..., actions_json: _Optional[str] = ...) -> None: ...

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
    __slots__ = ("episode_id", "decision", "observation", "legal_actions", "results", "terminated", "truncated", "outcome", "reward", "action_space_size", "reward_side", "tensors", "action_mask", "rewards", "final_agents", "steps", "pending_results", "late_results")
    class RewardsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: float
        def __init__(self, key: _Optional[str] = ..., value: _Optional[float] = ...) -> None: ...
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
    TENSORS_FIELD_NUMBER: _ClassVar[int]
    ACTION_MASK_FIELD_NUMBER: _ClassVar[int]
    REWARDS_FIELD_NUMBER: _ClassVar[int]
    FINAL_AGENTS_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    PENDING_RESULTS_FIELD_NUMBER: _ClassVar[int]
    LATE_RESULTS_FIELD_NUMBER: _ClassVar[int]
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
    tensors: TensorObservation
    action_mask: bytes
    rewards: _containers.ScalarMap[str, float]
    final_agents: _containers.RepeatedCompositeFieldContainer[AgentFinal]
    steps: int
    pending_results: int
    late_results: _containers.RepeatedCompositeFieldContainer[LateResults]
    def __init__(self, episode_id: _Optional[str] = ..., decision: _Optional[_Union[Decision, _Mapping]] = ..., observation: _Optional[_Union[Observation, _Mapping]] = ..., legal_actions: _Optional[_Iterable[_Union[LegalAction, _Mapping]]] = ..., results: _Optional[_Iterable[_Union[ActionResult, _Mapping]]] = ..., terminated: _Optional[bool] = ..., truncated: _Optional[bool] = ..., outcome: _Optional[_Union[Outcome, _Mapping]] = ..., reward: _Optional[float] = ..., action_space_size: _Optional[int] = ..., reward_side: _Optional[str] = ..., tensors: _Optional[_Union[TensorObservation, _Mapping]] = ..., action_mask: _Optional[bytes] = ..., rewards: _Optional[_Mapping[str, float]] = ..., final_agents: _Optional[_Iterable[_Union[AgentFinal, _Mapping]]] = ..., steps: _Optional[int] = ..., pending_results: _Optional[int] = ..., late_results: _Optional[_Iterable[_Union[LateResults, _Mapping]]] = ...) -> None: ...

class LateResults(_message.Message):
    __slots__ = ("decision_id", "first_index", "results")
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    FIRST_INDEX_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    decision_id: int
    first_index: int
    results: _containers.RepeatedCompositeFieldContainer[ActionResult]
    def __init__(self, decision_id: _Optional[int] = ..., first_index: _Optional[int] = ..., results: _Optional[_Iterable[_Union[ActionResult, _Mapping]]] = ...) -> None: ...

class TensorObservation(_message.Message):
    __slots__ = ("planes", "plane_shape", "features", "feature_shape")
    PLANES_FIELD_NUMBER: _ClassVar[int]
    PLANE_SHAPE_FIELD_NUMBER: _ClassVar[int]
    FEATURES_FIELD_NUMBER: _ClassVar[int]
    FEATURE_SHAPE_FIELD_NUMBER: _ClassVar[int]
    planes: _containers.RepeatedScalarFieldContainer[float]
    plane_shape: _containers.RepeatedScalarFieldContainer[int]
    features: _containers.RepeatedScalarFieldContainer[float]
    feature_shape: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, planes: _Optional[_Iterable[float]] = ..., plane_shape: _Optional[_Iterable[int]] = ..., features: _Optional[_Iterable[float]] = ..., feature_shape: _Optional[_Iterable[int]] = ...) -> None: ...

class AgentFinal(_message.Message):
    __slots__ = ("combatant_index", "combatant_id", "side", "reward", "tensors")
    COMBATANT_INDEX_FIELD_NUMBER: _ClassVar[int]
    COMBATANT_ID_FIELD_NUMBER: _ClassVar[int]
    SIDE_FIELD_NUMBER: _ClassVar[int]
    REWARD_FIELD_NUMBER: _ClassVar[int]
    TENSORS_FIELD_NUMBER: _ClassVar[int]
    combatant_index: int
    combatant_id: str
    side: str
    reward: float
    tensors: TensorObservation
    def __init__(self, combatant_index: _Optional[int] = ..., combatant_id: _Optional[str] = ..., side: _Optional[str] = ..., reward: _Optional[float] = ..., tensors: _Optional[_Union[TensorObservation, _Mapping]] = ...) -> None: ...

class ValidateRequest(_message.Message):
    __slots__ = ("episode_id", "decision_id", "action", "action_id")
    EPISODE_ID_FIELD_NUMBER: _ClassVar[int]
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    ACTION_ID_FIELD_NUMBER: _ClassVar[int]
    episode_id: str
    decision_id: int
    action: Action
    action_id: int
    def __init__(self, episode_id: _Optional[str] = ..., decision_id: _Optional[int] = ..., action: _Optional[_Union[Action, _Mapping]] = ..., action_id: _Optional[int] = ...) -> None: ...

class ExplainRequest(_message.Message):
    __slots__ = ("episode_id", "decision_id", "action_id", "label", "action_json", "action", "all")
    EPISODE_ID_FIELD_NUMBER: _ClassVar[int]
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_ID_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    ACTION_JSON_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    ALL_FIELD_NUMBER: _ClassVar[int]
    episode_id: str
    decision_id: int
    action_id: int
    label: str
    action_json: str
    action: Action
    all: bool
    def __init__(self, episode_id: _Optional[str] = ..., decision_id: _Optional[int] = ..., action_id: _Optional[int] = ..., label: _Optional[str] = ..., action_json: _Optional[str] = ..., action: _Optional[_Union[Action, _Mapping]] = ..., all: _Optional[bool] = ...) -> None: ...

class ExplainResponse(_message.Message):
    __slots__ = ("explanations",)
    EXPLANATIONS_FIELD_NUMBER: _ClassVar[int]
    explanations: _containers.RepeatedCompositeFieldContainer[Explanation]
    def __init__(self, explanations: _Optional[_Iterable[_Union[Explanation, _Mapping]]] = ...) -> None: ...

class Explanation(_message.Message):
    __slots__ = ("action_id", "label", "legal", "code", "result_code", "reason", "field")
    ACTION_ID_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    LEGAL_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    RESULT_CODE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    FIELD_FIELD_NUMBER: _ClassVar[int]
    action_id: int
    label: str
    legal: bool
    code: str
    result_code: ResultCode
    reason: str
    field: str
    def __init__(self, action_id: _Optional[int] = ..., label: _Optional[str] = ..., legal: _Optional[bool] = ..., code: _Optional[str] = ..., result_code: _Optional[_Union[ResultCode, str]] = ..., reason: _Optional[str] = ..., field: _Optional[str] = ...) -> None: ...

class SnapshotRequest(_message.Message):
    __slots__ = ("episode_id",)
    EPISODE_ID_FIELD_NUMBER: _ClassVar[int]
    episode_id: str
    def __init__(self, episode_id: _Optional[str] = ...) -> None: ...

class SnapshotResponse(_message.Message):
    __slots__ = ("snapshot", "rules_data_version")
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    RULES_DATA_VERSION_FIELD_NUMBER: _ClassVar[int]
    snapshot: bytes
    rules_data_version: str
    def __init__(self, snapshot: _Optional[bytes] = ..., rules_data_version: _Optional[str] = ...) -> None: ...

class RestoreRequest(_message.Message):
    __slots__ = ("scenario", "snapshot", "controlled", "observation", "reward", "tactics")
    class TacticsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    SCENARIO_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    CONTROLLED_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    REWARD_FIELD_NUMBER: _ClassVar[int]
    TACTICS_FIELD_NUMBER: _ClassVar[int]
    scenario: Scenario
    snapshot: bytes
    controlled: Controlled
    observation: ObservationOptions
    reward: RewardOptions
    tactics: _containers.ScalarMap[str, str]
    def __init__(self, scenario: _Optional[_Union[Scenario, _Mapping]] = ..., snapshot: _Optional[bytes] = ..., controlled: _Optional[_Union[Controlled, _Mapping]] = ..., observation: _Optional[_Union[ObservationOptions, _Mapping]] = ..., reward: _Optional[_Union[RewardOptions, _Mapping]] = ..., tactics: _Optional[_Mapping[str, str]] = ...) -> None: ...

class ForkRequest(_message.Message):
    __slots__ = ("episode_id",)
    EPISODE_ID_FIELD_NUMBER: _ClassVar[int]
    episode_id: str
    def __init__(self, episode_id: _Optional[str] = ...) -> None: ...

class ExportTranscriptRequest(_message.Message):
    __slots__ = ("episode_id", "json_only")
    EPISODE_ID_FIELD_NUMBER: _ClassVar[int]
    JSON_ONLY_FIELD_NUMBER: _ClassVar[int]
    episode_id: str
    json_only: bool
    def __init__(self, episode_id: _Optional[str] = ..., json_only: _Optional[bool] = ...) -> None: ...

class Transcript(_message.Message):
    __slots__ = ("episode_id", "scenario", "seed", "replayable", "controlled", "engine_version", "rng_version", "rules_data_version", "entries", "lines", "outcome", "decision", "round", "transcript_json")
    EPISODE_ID_FIELD_NUMBER: _ClassVar[int]
    SCENARIO_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    REPLAYABLE_FIELD_NUMBER: _ClassVar[int]
    CONTROLLED_FIELD_NUMBER: _ClassVar[int]
    ENGINE_VERSION_FIELD_NUMBER: _ClassVar[int]
    RNG_VERSION_FIELD_NUMBER: _ClassVar[int]
    RULES_DATA_VERSION_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    LINES_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    TRANSCRIPT_JSON_FIELD_NUMBER: _ClassVar[int]
    episode_id: str
    scenario: str
    seed: int
    replayable: bool
    controlled: _containers.RepeatedCompositeFieldContainer[CombatantInfo]
    engine_version: str
    rng_version: str
    rules_data_version: str
    entries: _containers.RepeatedCompositeFieldContainer[HistoryEntry]
    lines: _containers.RepeatedCompositeFieldContainer[TranscriptLine]
    outcome: Outcome
    decision: Decision
    round: int
    transcript_json: str
    def __init__(self, episode_id: _Optional[str] = ..., scenario: _Optional[str] = ..., seed: _Optional[int] = ..., replayable: _Optional[bool] = ..., controlled: _Optional[_Iterable[_Union[CombatantInfo, _Mapping]]] = ..., engine_version: _Optional[str] = ..., rng_version: _Optional[str] = ..., rules_data_version: _Optional[str] = ..., entries: _Optional[_Iterable[_Union[HistoryEntry, _Mapping]]] = ..., lines: _Optional[_Iterable[_Union[TranscriptLine, _Mapping]]] = ..., outcome: _Optional[_Union[Outcome, _Mapping]] = ..., decision: _Optional[_Union[Decision, _Mapping]] = ..., round: _Optional[int] = ..., transcript_json: _Optional[str] = ...) -> None: ...

class HistoryEntry(_message.Message):
    __slots__ = ("decision_id", "kind", "attack_of_opportunity", "actor_index", "actor_id", "actions", "results", "readied_trigger", "step_up")
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    ATTACK_OF_OPPORTUNITY_FIELD_NUMBER: _ClassVar[int]
    ACTOR_INDEX_FIELD_NUMBER: _ClassVar[int]
    ACTOR_ID_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    READIED_TRIGGER_FIELD_NUMBER: _ClassVar[int]
    STEP_UP_FIELD_NUMBER: _ClassVar[int]
    decision_id: int
    kind: DecisionKind
    attack_of_opportunity: AttackOfOpportunityOffer
    actor_index: int
    actor_id: str
    actions: _containers.RepeatedCompositeFieldContainer[Action]
    results: _containers.RepeatedCompositeFieldContainer[ActionResult]
    readied_trigger: ReadiedTriggerOffer
    step_up: StepUpOffer
    def __init__(self, decision_id: _Optional[int] = ..., kind: _Optional[_Union[DecisionKind, str]] = ..., attack_of_opportunity: _Optional[_Union[AttackOfOpportunityOffer, _Mapping]] = ..., actor_index: _Optional[int] = ..., actor_id: _Optional[str] = ..., actions: _Optional[_Iterable[_Union[Action, _Mapping]]] = ..., results: _Optional[_Iterable[_Union[ActionResult, _Mapping]]] = ..., readied_trigger: _Optional[_Union[ReadiedTriggerOffer, _Mapping]] = ..., step_up: _Optional[_Union[StepUpOffer, _Mapping]] = ...) -> None: ...

class TranscriptLine(_message.Message):
    __slots__ = ("round", "actor", "message")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    ACTOR_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    round: int
    actor: str
    message: str
    def __init__(self, round: _Optional[int] = ..., actor: _Optional[str] = ..., message: _Optional[str] = ...) -> None: ...

class ReplayTranscriptRequest(_message.Message):
    __slots__ = ("transcript_json", "observation", "reward")
    TRANSCRIPT_JSON_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    REWARD_FIELD_NUMBER: _ClassVar[int]
    transcript_json: bytes
    observation: ObservationOptions
    reward: RewardOptions
    def __init__(self, transcript_json: _Optional[bytes] = ..., observation: _Optional[_Union[ObservationOptions, _Mapping]] = ..., reward: _Optional[_Union[RewardOptions, _Mapping]] = ...) -> None: ...

class DescribeRequest(_message.Message):
    __slots__ = ("episode_id",)
    EPISODE_ID_FIELD_NUMBER: _ClassVar[int]
    episode_id: str
    def __init__(self, episode_id: _Optional[str] = ...) -> None: ...

class EpisodeDescription(_message.Message):
    __slots__ = ("episode_id", "scenario", "over", "decision", "outcome", "round", "age_seconds", "idle_seconds", "steps", "controlled_sides")
    EPISODE_ID_FIELD_NUMBER: _ClassVar[int]
    SCENARIO_FIELD_NUMBER: _ClassVar[int]
    OVER_FIELD_NUMBER: _ClassVar[int]
    DECISION_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    AGE_SECONDS_FIELD_NUMBER: _ClassVar[int]
    IDLE_SECONDS_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    CONTROLLED_SIDES_FIELD_NUMBER: _ClassVar[int]
    episode_id: str
    scenario: str
    over: bool
    decision: Decision
    outcome: Outcome
    round: int
    age_seconds: float
    idle_seconds: float
    steps: int
    controlled_sides: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, episode_id: _Optional[str] = ..., scenario: _Optional[str] = ..., over: _Optional[bool] = ..., decision: _Optional[_Union[Decision, _Mapping]] = ..., outcome: _Optional[_Union[Outcome, _Mapping]] = ..., round: _Optional[int] = ..., age_seconds: _Optional[float] = ..., idle_seconds: _Optional[float] = ..., steps: _Optional[int] = ..., controlled_sides: _Optional[_Iterable[str]] = ...) -> None: ...

class StatsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class StatsResponse(_message.Message):
    __slots__ = ("live_episodes", "max_episodes", "episodes_created", "episodes_closed", "episodes_evicted", "steps", "open_streams", "evaluations_running", "max_evaluations", "evaluations_started", "evaluations_completed", "evaluations_cancelled", "combats_evaluated", "instance_id", "episode_memory_bytes", "max_episode_memory_bytes", "max_turns_per_call", "calls_stopped", "client", "client_live_episodes", "client_max_episodes", "client_max_evaluations", "client_episode_memory_bytes", "open_connections", "connections_refused", "requests_rate_limited")
    LIVE_EPISODES_FIELD_NUMBER: _ClassVar[int]
    MAX_EPISODES_FIELD_NUMBER: _ClassVar[int]
    EPISODES_CREATED_FIELD_NUMBER: _ClassVar[int]
    EPISODES_CLOSED_FIELD_NUMBER: _ClassVar[int]
    EPISODES_EVICTED_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    OPEN_STREAMS_FIELD_NUMBER: _ClassVar[int]
    EVALUATIONS_RUNNING_FIELD_NUMBER: _ClassVar[int]
    MAX_EVALUATIONS_FIELD_NUMBER: _ClassVar[int]
    EVALUATIONS_STARTED_FIELD_NUMBER: _ClassVar[int]
    EVALUATIONS_COMPLETED_FIELD_NUMBER: _ClassVar[int]
    EVALUATIONS_CANCELLED_FIELD_NUMBER: _ClassVar[int]
    COMBATS_EVALUATED_FIELD_NUMBER: _ClassVar[int]
    INSTANCE_ID_FIELD_NUMBER: _ClassVar[int]
    EPISODE_MEMORY_BYTES_FIELD_NUMBER: _ClassVar[int]
    MAX_EPISODE_MEMORY_BYTES_FIELD_NUMBER: _ClassVar[int]
    MAX_TURNS_PER_CALL_FIELD_NUMBER: _ClassVar[int]
    CALLS_STOPPED_FIELD_NUMBER: _ClassVar[int]
    CLIENT_FIELD_NUMBER: _ClassVar[int]
    CLIENT_LIVE_EPISODES_FIELD_NUMBER: _ClassVar[int]
    CLIENT_MAX_EPISODES_FIELD_NUMBER: _ClassVar[int]
    CLIENT_MAX_EVALUATIONS_FIELD_NUMBER: _ClassVar[int]
    CLIENT_EPISODE_MEMORY_BYTES_FIELD_NUMBER: _ClassVar[int]
    OPEN_CONNECTIONS_FIELD_NUMBER: _ClassVar[int]
    CONNECTIONS_REFUSED_FIELD_NUMBER: _ClassVar[int]
    REQUESTS_RATE_LIMITED_FIELD_NUMBER: _ClassVar[int]
    live_episodes: int
    max_episodes: int
    episodes_created: int
    episodes_closed: int
    episodes_evicted: int
    steps: int
    open_streams: int
    evaluations_running: int
    max_evaluations: int
    evaluations_started: int
    evaluations_completed: int
    evaluations_cancelled: int
    combats_evaluated: int
    instance_id: str
    episode_memory_bytes: int
    max_episode_memory_bytes: int
    max_turns_per_call: int
    calls_stopped: int
    client: str
    client_live_episodes: int
    client_max_episodes: int
    client_max_evaluations: int
    client_episode_memory_bytes: int
    open_connections: int
    connections_refused: int
    requests_rate_limited: int
    def __init__(self, live_episodes: _Optional[int] = ..., max_episodes: _Optional[int] = ..., episodes_created: _Optional[int] = ..., episodes_closed: _Optional[int] = ..., episodes_evicted: _Optional[int] = ..., steps: _Optional[int] = ..., open_streams: _Optional[int] = ..., evaluations_running: _Optional[int] = ..., max_evaluations: _Optional[int] = ..., evaluations_started: _Optional[int] = ..., evaluations_completed: _Optional[int] = ..., evaluations_cancelled: _Optional[int] = ..., combats_evaluated: _Optional[int] = ..., instance_id: _Optional[str] = ..., episode_memory_bytes: _Optional[int] = ..., max_episode_memory_bytes: _Optional[int] = ..., max_turns_per_call: _Optional[int] = ..., calls_stopped: _Optional[int] = ..., client: _Optional[str] = ..., client_live_episodes: _Optional[int] = ..., client_max_episodes: _Optional[int] = ..., client_max_evaluations: _Optional[int] = ..., client_episode_memory_bytes: _Optional[int] = ..., open_connections: _Optional[int] = ..., connections_refused: _Optional[int] = ..., requests_rate_limited: _Optional[int] = ...) -> None: ...

class StepBatchRequest(_message.Message):
    __slots__ = ("steps", "resets", "columnar_steps", "columnar_response", "close_episode_ids", "compact_columns")
    STEPS_FIELD_NUMBER: _ClassVar[int]
    RESETS_FIELD_NUMBER: _ClassVar[int]
    COLUMNAR_STEPS_FIELD_NUMBER: _ClassVar[int]
    COLUMNAR_RESPONSE_FIELD_NUMBER: _ClassVar[int]
    CLOSE_EPISODE_IDS_FIELD_NUMBER: _ClassVar[int]
    COMPACT_COLUMNS_FIELD_NUMBER: _ClassVar[int]
    steps: _containers.RepeatedCompositeFieldContainer[StepRequest]
    resets: _containers.RepeatedCompositeFieldContainer[ResetRequest]
    columnar_steps: ColumnarSteps
    columnar_response: bool
    close_episode_ids: _containers.RepeatedScalarFieldContainer[str]
    compact_columns: bool
    def __init__(self, steps: _Optional[_Iterable[_Union[StepRequest, _Mapping]]] = ..., resets: _Optional[_Iterable[_Union[ResetRequest, _Mapping]]] = ..., columnar_steps: _Optional[_Union[ColumnarSteps, _Mapping]] = ..., columnar_response: _Optional[bool] = ..., close_episode_ids: _Optional[_Iterable[str]] = ..., compact_columns: _Optional[bool] = ...) -> None: ...

class ColumnarSteps(_message.Message):
    __slots__ = ("episode_ids", "decision_ids", "action_ids")
    EPISODE_IDS_FIELD_NUMBER: _ClassVar[int]
    DECISION_IDS_FIELD_NUMBER: _ClassVar[int]
    ACTION_IDS_FIELD_NUMBER: _ClassVar[int]
    episode_ids: _containers.RepeatedScalarFieldContainer[str]
    decision_ids: _containers.RepeatedScalarFieldContainer[int]
    action_ids: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, episode_ids: _Optional[_Iterable[str]] = ..., decision_ids: _Optional[_Iterable[int]] = ..., action_ids: _Optional[_Iterable[int]] = ...) -> None: ...

class BatchColumns(_message.Message):
    __slots__ = ("items", "planes", "plane_shape", "features", "feature_shape", "action_masks", "action_space_size", "rewards", "terminated", "truncated", "decision_ids", "actor_indices", "rounds", "result_ok", "result_codes", "errors", "action_mask_bits", "first_plane", "decision_kinds")
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    PLANES_FIELD_NUMBER: _ClassVar[int]
    PLANE_SHAPE_FIELD_NUMBER: _ClassVar[int]
    FEATURES_FIELD_NUMBER: _ClassVar[int]
    FEATURE_SHAPE_FIELD_NUMBER: _ClassVar[int]
    ACTION_MASKS_FIELD_NUMBER: _ClassVar[int]
    ACTION_SPACE_SIZE_FIELD_NUMBER: _ClassVar[int]
    REWARDS_FIELD_NUMBER: _ClassVar[int]
    TERMINATED_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    DECISION_IDS_FIELD_NUMBER: _ClassVar[int]
    ACTOR_INDICES_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_FIELD_NUMBER: _ClassVar[int]
    RESULT_OK_FIELD_NUMBER: _ClassVar[int]
    RESULT_CODES_FIELD_NUMBER: _ClassVar[int]
    ERRORS_FIELD_NUMBER: _ClassVar[int]
    ACTION_MASK_BITS_FIELD_NUMBER: _ClassVar[int]
    FIRST_PLANE_FIELD_NUMBER: _ClassVar[int]
    DECISION_KINDS_FIELD_NUMBER: _ClassVar[int]
    items: int
    planes: bytes
    plane_shape: _containers.RepeatedScalarFieldContainer[int]
    features: bytes
    feature_shape: _containers.RepeatedScalarFieldContainer[int]
    action_masks: bytes
    action_space_size: int
    rewards: _containers.RepeatedScalarFieldContainer[float]
    terminated: bytes
    truncated: bytes
    decision_ids: _containers.RepeatedScalarFieldContainer[int]
    actor_indices: _containers.RepeatedScalarFieldContainer[int]
    rounds: _containers.RepeatedScalarFieldContainer[int]
    result_ok: bytes
    result_codes: _containers.RepeatedScalarFieldContainer[ResultCode]
    errors: int
    action_mask_bits: bytes
    first_plane: int
    decision_kinds: bytes
    def __init__(self, items: _Optional[int] = ..., planes: _Optional[bytes] = ..., plane_shape: _Optional[_Iterable[int]] = ..., features: _Optional[bytes] = ..., feature_shape: _Optional[_Iterable[int]] = ..., action_masks: _Optional[bytes] = ..., action_space_size: _Optional[int] = ..., rewards: _Optional[_Iterable[float]] = ..., terminated: _Optional[bytes] = ..., truncated: _Optional[bytes] = ..., decision_ids: _Optional[_Iterable[int]] = ..., actor_indices: _Optional[_Iterable[int]] = ..., rounds: _Optional[_Iterable[int]] = ..., result_ok: _Optional[bytes] = ..., result_codes: _Optional[_Iterable[_Union[ResultCode, str]]] = ..., errors: _Optional[int] = ..., action_mask_bits: _Optional[bytes] = ..., first_plane: _Optional[int] = ..., decision_kinds: _Optional[bytes] = ...) -> None: ...

class ResetBatchRequest(_message.Message):
    __slots__ = ("resets",)
    RESETS_FIELD_NUMBER: _ClassVar[int]
    resets: _containers.RepeatedCompositeFieldContainer[ResetRequest]
    def __init__(self, resets: _Optional[_Iterable[_Union[ResetRequest, _Mapping]]] = ...) -> None: ...

class Error(_message.Message):
    __slots__ = ("code", "message", "reason")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    code: int
    message: str
    reason: str
    def __init__(self, code: _Optional[int] = ..., message: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class BatchItem(_message.Message):
    __slots__ = ("state", "error")
    STATE_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    state: EpisodeState
    error: Error
    def __init__(self, state: _Optional[_Union[EpisodeState, _Mapping]] = ..., error: _Optional[_Union[Error, _Mapping]] = ...) -> None: ...

class BatchResponse(_message.Message):
    __slots__ = ("items", "columns", "closed")
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    COLUMNS_FIELD_NUMBER: _ClassVar[int]
    CLOSED_FIELD_NUMBER: _ClassVar[int]
    items: _containers.RepeatedCompositeFieldContainer[BatchItem]
    columns: BatchColumns
    closed: int
    def __init__(self, items: _Optional[_Iterable[_Union[BatchItem, _Mapping]]] = ..., columns: _Optional[_Union[BatchColumns, _Mapping]] = ..., closed: _Optional[int] = ...) -> None: ...

class SessionRequest(_message.Message):
    __slots__ = ("request_id", "reset", "step", "observe", "validate", "close", "describe", "snapshot", "restore", "fork", "echo", "malformed")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    RESET_FIELD_NUMBER: _ClassVar[int]
    STEP_FIELD_NUMBER: _ClassVar[int]
    OBSERVE_FIELD_NUMBER: _ClassVar[int]
    VALIDATE_FIELD_NUMBER: _ClassVar[int]
    CLOSE_FIELD_NUMBER: _ClassVar[int]
    DESCRIBE_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    RESTORE_FIELD_NUMBER: _ClassVar[int]
    FORK_FIELD_NUMBER: _ClassVar[int]
    ECHO_FIELD_NUMBER: _ClassVar[int]
    MALFORMED_FIELD_NUMBER: _ClassVar[int]
    request_id: int
    reset: ResetRequest
    step: StepRequest
    observe: ObserveRequest
    validate: ValidateRequest
    close: CloseRequest
    describe: DescribeRequest
    snapshot: SnapshotRequest
    restore: RestoreRequest
    fork: ForkRequest
    echo: EchoRequest
    malformed: str
    def __init__(self, request_id: _Optional[int] = ..., reset: _Optional[_Union[ResetRequest, _Mapping]] = ..., step: _Optional[_Union[StepRequest, _Mapping]] = ..., observe: _Optional[_Union[ObserveRequest, _Mapping]] = ..., validate: _Optional[_Union[ValidateRequest, _Mapping]] = ..., close: _Optional[_Union[CloseRequest, _Mapping]] = ..., describe: _Optional[_Union[DescribeRequest, _Mapping]] = ..., snapshot: _Optional[_Union[SnapshotRequest, _Mapping]] = ..., restore: _Optional[_Union[RestoreRequest, _Mapping]] = ..., fork: _Optional[_Union[ForkRequest, _Mapping]] = ..., echo: _Optional[_Union[EchoRequest, _Mapping]] = ..., malformed: _Optional[str] = ...) -> None: ...

class SessionResponse(_message.Message):
    __slots__ = ("request_id", "state", "validation", "closed", "description", "snapshot", "echo", "error")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    VALIDATION_FIELD_NUMBER: _ClassVar[int]
    CLOSED_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    ECHO_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    request_id: int
    state: EpisodeState
    validation: ActionResult
    closed: CloseResponse
    description: EpisodeDescription
    snapshot: SnapshotResponse
    echo: EchoResponse
    error: Error
    def __init__(self, request_id: _Optional[int] = ..., state: _Optional[_Union[EpisodeState, _Mapping]] = ..., validation: _Optional[_Union[ActionResult, _Mapping]] = ..., closed: _Optional[_Union[CloseResponse, _Mapping]] = ..., description: _Optional[_Union[EpisodeDescription, _Mapping]] = ..., snapshot: _Optional[_Union[SnapshotResponse, _Mapping]] = ..., echo: _Optional[_Union[EchoResponse, _Mapping]] = ..., error: _Optional[_Union[Error, _Mapping]] = ...) -> None: ...

class EchoRequest(_message.Message):
    __slots__ = ("payload",)
    PAYLOAD_FIELD_NUMBER: _ClassVar[int]
    payload: bytes
    def __init__(self, payload: _Optional[bytes] = ...) -> None: ...

class EchoResponse(_message.Message):
    __slots__ = ("payload",)
    PAYLOAD_FIELD_NUMBER: _ClassVar[int]
    payload: bytes
    def __init__(self, payload: _Optional[bytes] = ...) -> None: ...

class Decision(_message.Message):
    __slots__ = ("decision_id", "actor_index", "actor_id", "round", "budget", "kind", "attack_of_opportunity", "readied_trigger", "step_up")
    DECISION_ID_FIELD_NUMBER: _ClassVar[int]
    ACTOR_INDEX_FIELD_NUMBER: _ClassVar[int]
    ACTOR_ID_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    BUDGET_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    ATTACK_OF_OPPORTUNITY_FIELD_NUMBER: _ClassVar[int]
    READIED_TRIGGER_FIELD_NUMBER: _ClassVar[int]
    STEP_UP_FIELD_NUMBER: _ClassVar[int]
    decision_id: int
    actor_index: int
    actor_id: str
    round: int
    budget: Budget
    kind: DecisionKind
    attack_of_opportunity: AttackOfOpportunityOffer
    readied_trigger: ReadiedTriggerOffer
    step_up: StepUpOffer
    def __init__(self, decision_id: _Optional[int] = ..., actor_index: _Optional[int] = ..., actor_id: _Optional[str] = ..., round: _Optional[int] = ..., budget: _Optional[_Union[Budget, _Mapping]] = ..., kind: _Optional[_Union[DecisionKind, str]] = ..., attack_of_opportunity: _Optional[_Union[AttackOfOpportunityOffer, _Mapping]] = ..., readied_trigger: _Optional[_Union[ReadiedTriggerOffer, _Mapping]] = ..., step_up: _Optional[_Union[StepUpOffer, _Mapping]] = ...) -> None: ...

class ReadiedTriggerOffer(_message.Message):
    __slots__ = ("trigger_by_index", "trigger_by_id", "trigger", "readied")
    TRIGGER_BY_INDEX_FIELD_NUMBER: _ClassVar[int]
    TRIGGER_BY_ID_FIELD_NUMBER: _ClassVar[int]
    TRIGGER_FIELD_NUMBER: _ClassVar[int]
    READIED_FIELD_NUMBER: _ClassVar[int]
    trigger_by_index: int
    trigger_by_id: str
    trigger: ReadyTrigger
    readied: Action
    def __init__(self, trigger_by_index: _Optional[int] = ..., trigger_by_id: _Optional[str] = ..., trigger: _Optional[_Union[ReadyTrigger, _Mapping]] = ..., readied: _Optional[_Union[Action, _Mapping]] = ...) -> None: ...

class StepUpOffer(_message.Message):
    __slots__ = ("foe_index", "foe_id", "squares")
    FOE_INDEX_FIELD_NUMBER: _ClassVar[int]
    FOE_ID_FIELD_NUMBER: _ClassVar[int]
    SQUARES_FIELD_NUMBER: _ClassVar[int]
    foe_index: int
    foe_id: str
    squares: _containers.RepeatedCompositeFieldContainer[Cell]
    def __init__(self, foe_index: _Optional[int] = ..., foe_id: _Optional[str] = ..., squares: _Optional[_Iterable[_Union[Cell, _Mapping]]] = ...) -> None: ...

class AttackOfOpportunityOffer(_message.Message):
    __slots__ = ("provoker_index", "provoker_id", "provocation", "weapons")
    PROVOKER_INDEX_FIELD_NUMBER: _ClassVar[int]
    PROVOKER_ID_FIELD_NUMBER: _ClassVar[int]
    PROVOCATION_FIELD_NUMBER: _ClassVar[int]
    WEAPONS_FIELD_NUMBER: _ClassVar[int]
    provoker_index: int
    provoker_id: str
    provocation: str
    weapons: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, provoker_index: _Optional[int] = ..., provoker_id: _Optional[str] = ..., provocation: _Optional[str] = ..., weapons: _Optional[_Iterable[int]] = ...) -> None: ...

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
    __slots__ = ("kind", "target", "destination", "weapon", "maneuver", "readied", "trigger", "aid_mode", "ally", "direction", "spell", "target_pos", "defensively", "metamagic")
    KIND_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    DESTINATION_FIELD_NUMBER: _ClassVar[int]
    WEAPON_FIELD_NUMBER: _ClassVar[int]
    MANEUVER_FIELD_NUMBER: _ClassVar[int]
    READIED_FIELD_NUMBER: _ClassVar[int]
    TRIGGER_FIELD_NUMBER: _ClassVar[int]
    AID_MODE_FIELD_NUMBER: _ClassVar[int]
    ALLY_FIELD_NUMBER: _ClassVar[int]
    DIRECTION_FIELD_NUMBER: _ClassVar[int]
    SPELL_FIELD_NUMBER: _ClassVar[int]
    TARGET_POS_FIELD_NUMBER: _ClassVar[int]
    DEFENSIVELY_FIELD_NUMBER: _ClassVar[int]
    METAMAGIC_FIELD_NUMBER: _ClassVar[int]
    kind: ActionKind
    target: int
    destination: Cell
    weapon: int
    maneuver: ManeuverType
    readied: Action
    trigger: ReadyTrigger
    aid_mode: AidMode
    ally: int
    direction: Direction
    spell: int
    target_pos: Cell
    defensively: bool
    metamagic: _containers.RepeatedScalarFieldContainer[Metamagic]
    def __init__(self, kind: _Optional[_Union[ActionKind, str]] = ..., target: _Optional[int] = ..., destination: _Optional[_Union[Cell, _Mapping]] = ..., weapon: _Optional[int] = ..., maneuver: _Optional[_Union[ManeuverType, str]] = ..., readied: _Optional[_Union[Action, _Mapping]] = ..., trigger: _Optional[_Union[ReadyTrigger, _Mapping]] = ..., aid_mode: _Optional[_Union[AidMode, str]] = ..., ally: _Optional[int] = ..., direction: _Optional[_Union[Direction, str]] = ..., spell: _Optional[int] = ..., target_pos: _Optional[_Union[Cell, _Mapping]] = ..., defensively: _Optional[bool] = ..., metamagic: _Optional[_Iterable[_Union[Metamagic, str]]] = ...) -> None: ...

class ReadyTrigger(_message.Message):
    __slots__ = ("event", "by", "within_ft")
    EVENT_FIELD_NUMBER: _ClassVar[int]
    BY_FIELD_NUMBER: _ClassVar[int]
    WITHIN_FT_FIELD_NUMBER: _ClassVar[int]
    event: ReadyTriggerEvent
    by: int
    within_ft: int
    def __init__(self, event: _Optional[_Union[ReadyTriggerEvent, str]] = ..., by: _Optional[int] = ..., within_ft: _Optional[int] = ...) -> None: ...

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
    __slots__ = ("kind", "ok", "reason", "field", "code", "detail")
    KIND_FIELD_NUMBER: _ClassVar[int]
    OK_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    FIELD_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    kind: ActionKind
    ok: bool
    reason: str
    field: str
    code: ResultCode
    detail: str
    def __init__(self, kind: _Optional[_Union[ActionKind, str]] = ..., ok: _Optional[bool] = ..., reason: _Optional[str] = ..., field: _Optional[str] = ..., code: _Optional[_Union[ResultCode, str]] = ..., detail: _Optional[str] = ...) -> None: ...

class Observation(_message.Message):
    __slots__ = ("round", "acting_index", "acting_id", "budget", "combatants", "initiative_order", "json", "text")
    ROUND_FIELD_NUMBER: _ClassVar[int]
    ACTING_INDEX_FIELD_NUMBER: _ClassVar[int]
    ACTING_ID_FIELD_NUMBER: _ClassVar[int]
    BUDGET_FIELD_NUMBER: _ClassVar[int]
    COMBATANTS_FIELD_NUMBER: _ClassVar[int]
    INITIATIVE_ORDER_FIELD_NUMBER: _ClassVar[int]
    JSON_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    round: int
    acting_index: int
    acting_id: str
    budget: Budget
    combatants: _containers.RepeatedCompositeFieldContainer[CombatantState]
    initiative_order: _containers.RepeatedScalarFieldContainer[str]
    json: str
    text: str
    def __init__(self, round: _Optional[int] = ..., acting_index: _Optional[int] = ..., acting_id: _Optional[str] = ..., budget: _Optional[_Union[Budget, _Mapping]] = ..., combatants: _Optional[_Iterable[_Union[CombatantState, _Mapping]]] = ..., initiative_order: _Optional[_Iterable[str]] = ..., json: _Optional[str] = ..., text: _Optional[str] = ...) -> None: ...

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

class EvaluateRequest(_message.Message):
    __slots__ = ("spec", "origin", "runs", "seed", "mode", "placements", "results", "heatmaps", "text")
    SPEC_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    RUNS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    PLACEMENTS_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    HEATMAPS_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    spec: str
    origin: str
    runs: int
    seed: int
    mode: EvaluateMode
    placements: _containers.RepeatedScalarFieldContainer[int]
    results: _containers.RepeatedCompositeFieldContainer[SweepPlacementResult]
    heatmaps: bool
    text: bool
    def __init__(self, spec: _Optional[str] = ..., origin: _Optional[str] = ..., runs: _Optional[int] = ..., seed: _Optional[int] = ..., mode: _Optional[_Union[EvaluateMode, str]] = ..., placements: _Optional[_Iterable[int]] = ..., results: _Optional[_Iterable[_Union[SweepPlacementResult, _Mapping]]] = ..., heatmaps: _Optional[bool] = ..., text: _Optional[bool] = ...) -> None: ...

class EvaluateResponse(_message.Message):
    __slots__ = ("progress", "report", "partial", "plan")
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    REPORT_FIELD_NUMBER: _ClassVar[int]
    PARTIAL_FIELD_NUMBER: _ClassVar[int]
    PLAN_FIELD_NUMBER: _ClassVar[int]
    progress: EvaluateProgress
    report: SweepReport
    partial: SweepPartialResults
    plan: SweepPlanSummary
    def __init__(self, progress: _Optional[_Union[EvaluateProgress, _Mapping]] = ..., report: _Optional[_Union[SweepReport, _Mapping]] = ..., partial: _Optional[_Union[SweepPartialResults, _Mapping]] = ..., plan: _Optional[_Union[SweepPlanSummary, _Mapping]] = ...) -> None: ...

class EvaluateProgress(_message.Message):
    __slots__ = ("combats_done", "combats_total", "placements_done", "placements_total", "elapsed_seconds", "eta_seconds")
    COMBATS_DONE_FIELD_NUMBER: _ClassVar[int]
    COMBATS_TOTAL_FIELD_NUMBER: _ClassVar[int]
    PLACEMENTS_DONE_FIELD_NUMBER: _ClassVar[int]
    PLACEMENTS_TOTAL_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_SECONDS_FIELD_NUMBER: _ClassVar[int]
    ETA_SECONDS_FIELD_NUMBER: _ClassVar[int]
    combats_done: int
    combats_total: int
    placements_done: int
    placements_total: int
    elapsed_seconds: float
    eta_seconds: float
    def __init__(self, combats_done: _Optional[int] = ..., combats_total: _Optional[int] = ..., placements_done: _Optional[int] = ..., placements_total: _Optional[int] = ..., elapsed_seconds: _Optional[float] = ..., eta_seconds: _Optional[float] = ...) -> None: ...

class SweepPlanSummary(_message.Message):
    __slots__ = ("placements", "runs", "seed", "combats", "product_size", "excluded", "swept", "sides", "rank_side", "fingerprint")
    PLACEMENTS_FIELD_NUMBER: _ClassVar[int]
    RUNS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    COMBATS_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_SIZE_FIELD_NUMBER: _ClassVar[int]
    EXCLUDED_FIELD_NUMBER: _ClassVar[int]
    SWEPT_FIELD_NUMBER: _ClassVar[int]
    SIDES_FIELD_NUMBER: _ClassVar[int]
    RANK_SIDE_FIELD_NUMBER: _ClassVar[int]
    FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    placements: int
    runs: int
    seed: int
    combats: int
    product_size: int
    excluded: int
    swept: _containers.RepeatedScalarFieldContainer[str]
    sides: _containers.RepeatedScalarFieldContainer[str]
    rank_side: str
    fingerprint: str
    def __init__(self, placements: _Optional[int] = ..., runs: _Optional[int] = ..., seed: _Optional[int] = ..., combats: _Optional[int] = ..., product_size: _Optional[int] = ..., excluded: _Optional[int] = ..., swept: _Optional[_Iterable[str]] = ..., sides: _Optional[_Iterable[str]] = ..., rank_side: _Optional[str] = ..., fingerprint: _Optional[str] = ...) -> None: ...

class SweepPlacementResult(_message.Message):
    __slots__ = ("index", "product_index", "starts", "wins", "draws", "truncated", "rounds_sum", "runs", "plan_fingerprint")
    INDEX_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_INDEX_FIELD_NUMBER: _ClassVar[int]
    STARTS_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    DRAWS_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    ROUNDS_SUM_FIELD_NUMBER: _ClassVar[int]
    RUNS_FIELD_NUMBER: _ClassVar[int]
    PLAN_FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    index: int
    product_index: int
    starts: _containers.RepeatedCompositeFieldContainer[Cell]
    wins: _containers.RepeatedScalarFieldContainer[int]
    draws: int
    truncated: int
    rounds_sum: int
    runs: int
    plan_fingerprint: str
    def __init__(self, index: _Optional[int] = ..., product_index: _Optional[int] = ..., starts: _Optional[_Iterable[_Union[Cell, _Mapping]]] = ..., wins: _Optional[_Iterable[int]] = ..., draws: _Optional[int] = ..., truncated: _Optional[int] = ..., rounds_sum: _Optional[int] = ..., runs: _Optional[int] = ..., plan_fingerprint: _Optional[str] = ...) -> None: ...

class SweepPartialResults(_message.Message):
    __slots__ = ("results", "plan")
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    PLAN_FIELD_NUMBER: _ClassVar[int]
    results: _containers.RepeatedCompositeFieldContainer[SweepPlacementResult]
    plan: SweepPlanSummary
    def __init__(self, results: _Optional[_Iterable[_Union[SweepPlacementResult, _Mapping]]] = ..., plan: _Optional[_Union[SweepPlanSummary, _Mapping]] = ...) -> None: ...

class SweepReport(_message.Message):
    __slots__ = ("json", "csv", "text", "plan", "best", "ranking", "placements", "cell_stats", "best_set")
    JSON_FIELD_NUMBER: _ClassVar[int]
    CSV_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    PLAN_FIELD_NUMBER: _ClassVar[int]
    BEST_FIELD_NUMBER: _ClassVar[int]
    RANKING_FIELD_NUMBER: _ClassVar[int]
    PLACEMENTS_FIELD_NUMBER: _ClassVar[int]
    CELL_STATS_FIELD_NUMBER: _ClassVar[int]
    BEST_SET_FIELD_NUMBER: _ClassVar[int]
    json: str
    csv: str
    text: str
    plan: SweepPlanSummary
    best: int
    ranking: _containers.RepeatedScalarFieldContainer[int]
    placements: _containers.RepeatedCompositeFieldContainer[SweepRow]
    cell_stats: _containers.RepeatedCompositeFieldContainer[SweepCellStats]
    best_set: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, json: _Optional[str] = ..., csv: _Optional[str] = ..., text: _Optional[str] = ..., plan: _Optional[_Union[SweepPlanSummary, _Mapping]] = ..., best: _Optional[int] = ..., ranking: _Optional[_Iterable[int]] = ..., placements: _Optional[_Iterable[_Union[SweepRow, _Mapping]]] = ..., cell_stats: _Optional[_Iterable[_Union[SweepCellStats, _Mapping]]] = ..., best_set: _Optional[_Iterable[int]] = ...) -> None: ...

class SweepRate(_message.Message):
    __slots__ = ("count", "rate", "band_3sigma_lo", "band_3sigma_hi")
    COUNT_FIELD_NUMBER: _ClassVar[int]
    RATE_FIELD_NUMBER: _ClassVar[int]
    BAND_3SIGMA_LO_FIELD_NUMBER: _ClassVar[int]
    BAND_3SIGMA_HI_FIELD_NUMBER: _ClassVar[int]
    count: int
    rate: float
    band_3sigma_lo: float
    band_3sigma_hi: float
    def __init__(self, count: _Optional[int] = ..., rate: _Optional[float] = ..., band_3sigma_lo: _Optional[float] = ..., band_3sigma_hi: _Optional[float] = ...) -> None: ...

class SweepDisplaced(_message.Message):
    __slots__ = ("id", "from_cell", "to_cell")
    ID_FIELD_NUMBER: _ClassVar[int]
    FROM_CELL_FIELD_NUMBER: _ClassVar[int]
    TO_CELL_FIELD_NUMBER: _ClassVar[int]
    id: str
    from_cell: Cell
    to_cell: Cell
    def __init__(self, id: _Optional[str] = ..., from_cell: _Optional[_Union[Cell, _Mapping]] = ..., to_cell: _Optional[_Union[Cell, _Mapping]] = ...) -> None: ...

class SweepRow(_message.Message):
    __slots__ = ("index", "product_index", "rank", "cells", "starts", "displaced", "runs", "wins", "draws", "truncated", "mean_rounds", "z_vs_best", "significantly_worse", "p_vs_best", "in_best_set", "wilson_3sigma_lo", "wilson_3sigma_hi")
    INDEX_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_INDEX_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    CELLS_FIELD_NUMBER: _ClassVar[int]
    STARTS_FIELD_NUMBER: _ClassVar[int]
    DISPLACED_FIELD_NUMBER: _ClassVar[int]
    RUNS_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    DRAWS_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    MEAN_ROUNDS_FIELD_NUMBER: _ClassVar[int]
    Z_VS_BEST_FIELD_NUMBER: _ClassVar[int]
    SIGNIFICANTLY_WORSE_FIELD_NUMBER: _ClassVar[int]
    P_VS_BEST_FIELD_NUMBER: _ClassVar[int]
    IN_BEST_SET_FIELD_NUMBER: _ClassVar[int]
    WILSON_3SIGMA_LO_FIELD_NUMBER: _ClassVar[int]
    WILSON_3SIGMA_HI_FIELD_NUMBER: _ClassVar[int]
    index: int
    product_index: int
    rank: int
    cells: _containers.RepeatedCompositeFieldContainer[Cell]
    starts: _containers.RepeatedCompositeFieldContainer[Cell]
    displaced: _containers.RepeatedCompositeFieldContainer[SweepDisplaced]
    runs: int
    wins: _containers.RepeatedCompositeFieldContainer[SweepRate]
    draws: SweepRate
    truncated: int
    mean_rounds: float
    z_vs_best: float
    significantly_worse: bool
    p_vs_best: float
    in_best_set: bool
    wilson_3sigma_lo: float
    wilson_3sigma_hi: float
    def __init__(self, index: _Optional[int] = ..., product_index: _Optional[int] = ..., rank: _Optional[int] = ..., cells: _Optional[_Iterable[_Union[Cell, _Mapping]]] = ..., starts: _Optional[_Iterable[_Union[Cell, _Mapping]]] = ..., displaced: _Optional[_Iterable[_Union[SweepDisplaced, _Mapping]]] = ..., runs: _Optional[int] = ..., wins: _Optional[_Iterable[_Union[SweepRate, _Mapping]]] = ..., draws: _Optional[_Union[SweepRate, _Mapping]] = ..., truncated: _Optional[int] = ..., mean_rounds: _Optional[float] = ..., z_vs_best: _Optional[float] = ..., significantly_worse: _Optional[bool] = ..., p_vs_best: _Optional[float] = ..., in_best_set: _Optional[bool] = ..., wilson_3sigma_lo: _Optional[float] = ..., wilson_3sigma_hi: _Optional[float] = ...) -> None: ...

class SweepCellRate(_message.Message):
    __slots__ = ("cell", "placements", "wins", "runs", "rate")
    CELL_FIELD_NUMBER: _ClassVar[int]
    PLACEMENTS_FIELD_NUMBER: _ClassVar[int]
    WINS_FIELD_NUMBER: _ClassVar[int]
    RUNS_FIELD_NUMBER: _ClassVar[int]
    RATE_FIELD_NUMBER: _ClassVar[int]
    cell: Cell
    placements: int
    wins: int
    runs: int
    rate: float
    def __init__(self, cell: _Optional[_Union[Cell, _Mapping]] = ..., placements: _Optional[int] = ..., wins: _Optional[int] = ..., runs: _Optional[int] = ..., rate: _Optional[float] = ...) -> None: ...

class SweepCellStats(_message.Message):
    __slots__ = ("combatant", "side", "cells", "png")
    COMBATANT_FIELD_NUMBER: _ClassVar[int]
    SIDE_FIELD_NUMBER: _ClassVar[int]
    CELLS_FIELD_NUMBER: _ClassVar[int]
    PNG_FIELD_NUMBER: _ClassVar[int]
    combatant: str
    side: str
    cells: _containers.RepeatedCompositeFieldContainer[SweepCellRate]
    png: bytes
    def __init__(self, combatant: _Optional[str] = ..., side: _Optional[str] = ..., cells: _Optional[_Iterable[_Union[SweepCellRate, _Mapping]]] = ..., png: _Optional[bytes] = ...) -> None: ...
