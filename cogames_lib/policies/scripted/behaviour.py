"""The scripted baseline: what to do next, decided afresh every step from what the agent knows.

Priorities, top first:
1. energy does not refill and is short for the next leg: recharge at the nearest charger;
2. carrying a heart: show `default` (or `heart_b`) and deposit it in the heart chest (not knowing the chest,
   follow a teammate showing `heart_b`); my inputs just went into a teammate's heart and I know the chest:
   lead the way there showing `heart_b` (`_guide`);
3. holding my share of the recipe: (with a spare decoder, unclip a known clipped extractor first) go to
   the assembler and chorus (show `heart_a` once all N are there; an agent in an orthogonal cell uses the
   assembler when N `heart_a` are visible);
4. a missing resource has a known, usable source: withdraw it from a resource chest, extract it, or
   (unclip skill) craft a decoder with `gear` and unclip the extractor first;
5. a missing resource was never seen: explore; nothing left to explore: chorus with what I hold.
In a team whose agents began one kind short (extract-missing), an agent holding its share that waited in
an incomplete chorus helps search for that kind in its own sector (`_one_short`).
"My share" is my role's resources (`role_resources` over the kinds the team's seeds leave,
`_split_what_seeds_leave`), less the kinds the team's seeds cover if every teammate began as I did
(`_pool_covers`), until a full chorus fails to assemble (the
pooled inputs were short); from then on the agent gathers a whole recipe alone, and after
`SEARCH_PATIENCE` steps of fruitless searching it tries the pooled chorus again. The assembler half
(chorus, crafting, making way) lives in `assembler.py`.
"""

from __future__ import annotations

import random
from typing import Any

from cogames_lib.cvc import rules
from cogames_lib.cvc.observation import SELF_INDEX
from cogames_lib.policies.scripted.assembler import (
    DEFAULT,
    HEART_A,
    HEART_B,
    ORTHOGONAL,
    AssemblerBehaviour,
    vibe_action,
)
from cogames_lib.policies.scripted.energy import THRIFTY_BELOW, EnergyPlanning
from cogames_lib.policies.scripted.frontier import direction_of, own_sector
from cogames_lib.policies.scripted.navigation import Navigator
from cogames_lib.policies.scripted.planning import Cell, move_action
from cogames_lib.policies.scripted.skills import HEART_RECIPE, Skills, role_resources

DEPOSIT_VIBES = frozenset(rules.VIBE_INDEX[v] for v in rules.HEART_CHEST_DEPOSIT_VIBES)
RESOURCE_SLOTS = {r: rules.ITEM_INDEX[r] for r in rules.RESOURCES}
FAILED_USES_BEFORE_GATHERING = 2  # a single failed use can be a vibe race; two mean the pool is short
SEARCH_PATIENCE = 40  # steps of searching alone before trying the pooled chorus again
CLIPPED_DETOUR = 8  # prefer a working extractor unless a clipped one is this much closer
AXIS_RATIO = 3.0  # a far source is traded by sector only this clearly in one direction (`_on_axis`)
FAR_SOURCE = 30  # Manhattan distance from the team's centre beyond which a source goes by sector (`_duty`)
FAR_ARM = 16  # ... or beyond this, at the end of a straight way from the centre (`_far`)
ARM_SLACK = 6  # steps a way to a source may exceed its offset from the centre and still be straight
HELP_AFTER = 8  # steps in an incomplete chorus before a one-kind-short agent helps (`_one_short`)
CHECK_WAIT = 200  # steps a searcher back from its searched-out sector waits for the helpers
HELP_STEPS = 110  # a helper searches at most this many steps before it goes back to the assembler
NEAR_SOURCE = 12  # a helper leaves a source this near the team's centre to the searcher (`_near_source`)
FINDER_AFTER = 20  # steps (after HELP_AFTER) before a heart_a at the assembler means a helper found it
TEAM_SEEDS = True  # count on teammates holding the seeds I began with (`_pool_covers`); False: never
GUIDE_STEPS = 120  # steps at most leading a heart's carrier to the chest (`_guide`)
GUIDE_NEAR = 3  # a guide this near the chest stops: the carrier behind it sees the chest
SHARED_CENTRE = True  # trade far sources only when every teammate counts sectors from one centre
SPLIT_LEFT = True  # the roles split only what the team's seeds leave (`_split_what_seeds_leave`)
SEED_DECODERS = True  # ... counting the decoders crafted from the seeds (`_split_what_seeds_leave`)
TRADE_STEPS = 60  # steps at most searching my sector for a claim in place of what I left (`_trade_search`)
IDLE, OUT, DONE = 0, 1, 2  # a helper's state: waiting, searching its sector, back for good


class ScriptedPolicy(AssemblerBehaviour, EnergyPlanning):
    """Decentralized scripted baseline. `disabled` names skills to switch off (see `Skills`)."""

    def __init__(self, disabled: tuple[str, ...] | list[str] = ()) -> None:
        self.skills = Skills.without(tuple(disabled))
        self.reset(0, 1, 0)

    def reset(self, agent_id: int, num_agents: int, seed: int) -> None:
        self.num_agents = num_agents
        self.rng = random.Random(seed)
        self.nav = Navigator(self.skills, self.rng)
        self.nav.sector = own_sector(agent_id, num_agents)
        self.nav.num_agents = num_agents
        self.agent_id = agent_id
        # Which teammate owns each sector direction (`own_sector`): every agent derives the same table.
        self.owner_of = {d: a for a in range(num_agents) for d in own_sector(a, num_agents)}
        self.role = role_resources(agent_id, num_agents)
        self.team_kinds = rules.RESOURCES  # the kinds the roles split (`_split_what_seeds_leave`)
        self.claimed: list[str] = []  # far resources found in my sector that I fetch (`_duty`)
        self.free_slots = 0  # my role's resources left to teammates' sectors, not yet traded for (`_duty`)
        self.sector_searched = False  # my own sector holds no reachable frontier cell (`_trade_search`)
        self.trade_steps = 0  # steps spent on that search (`_trade_search`)
        self.self_sufficient = False
        self.mates_hold_shares = False  # every teammate seen at once showing heart_a (see `act`)
        self.chorus_size = num_agents if self.skills.chorus else 1
        self.energy_limited = False
        self.charging = False
        self.failed_uses = 0
        self.full_chorus_steps = 0
        self.backoff = 0
        self.yielded = 0
        self.search_steps = 0
        self.incomplete_steps = 0  # steps standing in the ring with an incomplete chorus (`_chorus`)
        self.seeded_short: bool | None = None  # began one kind short of a whole recipe (`_one_short`)
        self.seeds = dict.fromkeys(rules.RESOURCES, 0)  # what I held at the first step (`_pool_covers`)
        # What my teammates hold, on the guess of `_pool_covers` (`_split_what_seeds_leave`).
        self.mate_seeds = dict.fromkeys(rules.RESOURCES, 0)
        self.seed_crafters = False  # the split counts on decoders crafted from seeds: no trades (`_duty`)
        self.help_state = IDLE  # helping teammates search for the one kind the team lacks (`_one_short`)
        self.help_steps = 0
        self.search_stage = 0  # one kind short, searching: 0 own sector, 1 check at the assembler, 2 all
        self._chorus_use = False
        self.guide_steps = 0  # steps left leading a teammate's heart to the chest (`_guide`)
        self.last_resources: list[int] = []  # my resources at the last step (`act`: did a heart take them?)
        # `act` compares what the pooled chorus took while I showed heart_a, so `self.vibe` holds the last
        # step's vibe until the new observation is read; every episode starts with `default`.
        self.vibe: int = DEFAULT

    # -- the step ----------------------------------------------------------------------------------
    def act(self, observation: dict[str, Any]) -> int:
        me = observation["self"].tolist()
        succeeded = bool(me[SELF_INDEX["last_action_succeeded"]])
        self.nav.observe(observation["grid"], succeeded)
        items = me[: len(rules.ITEMS)]
        resources = [items[RESOURCE_SLOTS[r]] for r in rules.RESOURCES]
        if (
            self.last_resources
            and self.vibe == HEART_A
            and any(now < before for now, before in zip(resources, self.last_resources, strict=True))
            and not items[rules.HEART]
            and self.nav.memory.known("chest")
        ):
            # The pooled chorus took my resources (nothing else takes them while I show heart_a: a decoder
            # needs `gear`, a chest deposit `<r>_b`) and I hold no heart: a teammate carries it, and may
            # not know the chest I know.
            self.guide_steps = GUIDE_STEPS
        self.last_resources = resources
        self.items = items
        self.energy = me[SELF_INDEX["energy"]]
        self.vibe = me[SELF_INDEX["vibe"]]
        if self.seeded_short is None:
            self.seeded_short = self._short_kinds() == 1
            self.seeds = {r: self.items[RESOURCE_SLOTS[r]] for r in rules.RESOURCES}
            self._split_what_seeds_leave()
        # Refill puts energy back to capacity after every step; anything lower means energy is finite.
        self.energy_limited = self.energy_limited or self.energy < rules.ENERGY_CAPACITY
        self.nav.thrifty = self.energy_limited and self.energy < THRIFTY_BELOW
        # Every teammate in view showing heart_a holds its share: none of them searches any more, so
        # dividing my search by sectors would only leave theirs unsearched (extract-missing: one lacks).
        beacons = sum(1 for vibe in self.nav.memory.agents.values() if vibe == HEART_A)
        self.mates_hold_shares = self.mates_hold_shares or beacons >= self.num_agents - 1 > 0
        if self._chorus_use:
            self._chorus_use = False
            self.failed_uses = 0 if succeeded else self.failed_uses + 1
            if self.failed_uses >= FAILED_USES_BEFORE_GATHERING:
                self._pool_was_short()
        # Record the action actually returned (a branch may plan a move and then send a vibe change
        # instead): dead reckoning must only ever follow what was really done.
        return self.nav.moved(self._decide())

    def _decide(self) -> int:
        missing = self._missing()
        found = None if missing or self.items[rules.HEART] else self._assembler_ring()
        if found is not None:
            # Holding my share with the assembler known: charge only if the walk there and a use would
            # not leave enough to reach a charger. Teammates waiting in the chorus may stand on every
            # side of a charger next to the assembler; my heart_a is what frees them.
            # While low, top up at a charger whose free side is a step away: waiting for the chorus
            # costs nothing, making way for teammates does, and arriving at a charger empty is the end.
            # (Farther, teammates in the ring may cut the way, and they wait for my heart_a.)
            self.charging = self._needs_charge(found[1], rules.STATION_USE_ENERGY_COST) or (
                self._needs_charge(None, 0) and self.energy < THRIFTY_BELOW and self._free_charger(1)
            )
        if self.charging or (found is None and self._needs_charge(None, 0)):
            action = self._recharge()
            if action is not None:
                return action
        if self.items[rules.HEART]:
            return self._deliver()
        if self.guide_steps > 0 or self.vibe == HEART_B:  # guiding, or just done: back to default
            self.guide_steps = max(self.guide_steps - 1, 0)
            action = self._guide()
            if action is not None:
                return action
        if not missing:
            spare = self._unclip_spare()
            if spare is not None:
                return spare
            if self.help_state == IDLE and self.incomplete_steps >= HELP_AFTER and self._one_short():
                self.help_state = OUT  # see `_one_short`
                missing = self._missing()
            if not missing:
                action = self._trade_search()
                return self._chorus() if action is None else action
        if self.help_state == OUT and self._near_source(missing):
            # The searcher whose role holds it finds a source this near the centre too: helpers
            # walking there only crowd its way back (normal extract-missing maps: a 1-wide corridor).
            self.help_state = DONE
            return self._chorus()
        source = self._best_source(missing)
        if source is not None:
            return source
        never_seen = [r for r in missing if not self._sources_known(r)]
        if never_seen:
            self.search_steps += 1
            if self.self_sufficient and self.search_steps > SEARCH_PATIENCE:
                # Searching alone for long: the teammates may have gathered what I lack meanwhile.
                self.self_sufficient = False
                self.search_steps = 0
            if self.help_state == OUT:
                self.help_steps += 1
                if self.help_steps > HELP_STEPS:
                    self.help_state = DONE  # the searcher may be back with it: no longer than this
                    return self._chorus()
            exclusive = self.help_state == OUT or (
                self.search_stage == 0 and self.mates_hold_shares and self._one_short()
            )
            if (
                exclusive
                and self.help_state != OUT
                and self.search_steps > HELP_AFTER + FINDER_AFTER
                and self._finder_in_view()
            ):
                # Passing the assembler, a teammate there shows heart_a: only a helper holding the kind
                # does (one back without it waits showing default, see `_chorus`). Join the chorus.
                self.search_stage = 1
                self.incomplete_steps = 0
            if self.search_stage == 1 and self.incomplete_steps >= CHECK_WAIT:
                self.search_stage = 2  # the helpers are not all back: search everywhere myself
            if self.search_stage == 1:
                return self._chorus()
            # Only my role's resources are mine alone to find: search my sector first. A shared target
            # (the assembler, the chest) every agent must reach itself, so that search is not divided.
            action = self.nav.explore(
                divided=not (self.self_sufficient or self.mates_hold_shares), exclusive=exclusive
            )
            if action is not None:
                if exclusive and self.vibe == HEART_A:
                    return vibe_action(DEFAULT)  # heart_a means "with my share, at the assembler"
                left = self._leave_assembler_vibe(action)  # never None for an action given
                return action if left is None else left
            if exclusive:  # my sector is searched out: back to the assembler
                if self.help_state == OUT:
                    self.help_state = DONE
                else:
                    self.search_stage = 1
                self.incomplete_steps = 0
        return self._chorus()

    def _trade_search(self) -> int | None:
        """I left some of my role's resources to teammates' sectors (`_duty`): each such owner fetches a far
        source it finds in its sector in their place and drops one of its own role's, which lies in mine
        if the trade is even. So before I wait at the assembler, I search my own sector for a far source to
        claim, until it is searched out (the normal radial at 2 agents: agent 0 left carbon east to agent 1,
        which claimed it and dropped silicon, and waited while the silicon at the end of its south arm was
        fetched by no one). None when there is nothing to search for."""
        if (
            self.free_slots <= 0
            or self.sector_searched
            or self.trade_steps >= TRADE_STEPS
            or self.num_agents <= 1
            or self.self_sufficient
            or self.help_state != IDLE
            or not self.skills.explore
        ):
            return None
        action = self.nav.explore(divided=True, exclusive=True)
        if action is None:
            self.sector_searched = True
            return None
        self.trade_steps += 1
        if self.vibe == HEART_A:
            return vibe_action(DEFAULT)  # heart_a means "with my share, at the assembler"
        left = self._leave_assembler_vibe(action)
        return action if left is None else left

    # -- needs and sources -------------------------------------------------------------------------
    def _missing(self) -> list[str]:
        if self.self_sufficient or self.help_state == OUT:
            return [r for r in rules.RESOURCES if self.items[RESOURCE_SLOTS[r]] < HEART_RECIPE[r]]
        return [r for r in self._duty() if not self._pool_covers(r)]  # a kind I hold is covered too

    def _pool_was_short(self) -> None:
        super()._pool_was_short()
        self.seeds = dict.fromkeys(rules.RESOURCES, 0)  # the guess of `_pool_covers` was wrong
        self.mate_seeds = dict.fromkeys(rules.RESOURCES, 0)
        self.seed_crafters = False
        self.team_kinds = rules.RESOURCES
        self.role = role_resources(self.agent_id, self.num_agents)

    def _split_what_seeds_leave(self) -> None:
        """Split among the roles only the kinds the team's seeds leave to fetch, on the guess of
        `_pool_covers` (every teammate began as I did). unclip_preseed at 2 agents: both hold germanium
        and silicon, carbon and oxygen start clipped; the fixed split gave agent 0 both clipped kinds
        and agent 1 nothing to do, so one agent walked to both extractors and crafted a second decoder
        while the other waited with a decoder in hand. Seeds that cover some agent's fixed role and hold
        nothing else (`chorus_pair`, `chorus_quad`: each agent is handed its role) say the seeds were dealt
        by role, not alike: then the fixed split stays. (Asked of any agent's role, not only mine, so that
        teammates with the same seeds give the same answer.) One kind short (extract-missing), the
        helpers' search (`_one_short`) divides the work. Seeds that pay for a decoder count the decoders
        the unseeded kinds may need (`SEED_DECODERS`, below)."""
        mates = self.num_agents - 1 if TEAM_SEEDS else 0
        self.mate_seeds = {r: mates * self.seeds[r] for r in rules.RESOURCES}
        if not SPLIT_LEFT or self.num_agents <= 1 or not TEAM_SEEDS or self.seeded_short:
            return
        if any(self._seeds_are_exactly(role_resources(a, self.num_agents)) for a in range(self.num_agents)):
            return
        left = tuple(r for r in rules.RESOURCES if self.num_agents * self.seeds[r] < HEART_RECIPE[r])
        if not left:
            return
        cost = self._seed_decoder()
        # Seeds that pay a decoder hold three different kinds, so at most one kind is unseeded: it comes from
        # an extractor only, which may start clipped.
        unseeded = [r for r in left if not self.seeds[r]]
        if cost and unseeded:
            # Its role holder then crafts a decoder from its own seeds: my guess of what teammates hold
            # drops those seeds (`mate_seeds`), and the kinds the decoder leaves short are dealt after the
            # others, so that (the split being contiguous) they go to another agent, whose seeds can still
            # pay a decoder if they start clipped too. unclip_craft at 2 agents: carbon's decoder eats one
            # of the two oxygen, and oxygen starts clipped too: agent 0 crafts for carbon and fetches
            # silicon, agent 1 crafts for oxygen. Only the first decoder is counted (a second one is known
            # to be needed only once its kind is seen clipped): agent 0 still counts on agent 1's
            # germanium, which agent 1's decoder eats and agent 1 fetches again (`_spent`).
            left += tuple(
                r
                for r in rules.RESOURCES
                if r not in left
                and self.num_agents * self.seeds[r] - len(unseeded) * cost.get(r, 0) < HEART_RECIPE[r]
            )
            self.seed_crafters = True
            for agent in range(self.num_agents):
                if agent != self.agent_id and set(unseeded) & set(
                    role_resources(agent, self.num_agents, left)
                ):
                    for r, n in cost.items():
                        self.mate_seeds[r] -= n
        self.team_kinds = left
        self.role = role_resources(self.agent_id, self.num_agents, left)

    def _seed_decoder(self) -> dict[str, int]:
        """The inputs of the decoder my seeds pay for (the assembler's first payable option), or none: I
        hold a decoder already, or cannot pay one, or `SEED_DECODERS` is off."""
        if not SEED_DECODERS or self.items[rules.DECODER] or not self.skills.unclip:
            return {}
        for option in rules.DECODER_INPUT_OPTIONS:
            if all(self.seeds[r] >= n for r, n in option):
                return dict(option)
        return {}

    def _seeds_are_exactly(self, role: tuple[str, ...]) -> bool:
        """My seeds cover `role` and hold no other resource."""
        return bool(role) and all(
            (self.seeds[r] >= HEART_RECIPE[r]) if r in role else not self.seeds[r] for r in rules.RESOURCES
        )

    def _role_of(self, agent: int) -> tuple[str, ...]:
        """A teammate's role, split as mine is (`_split_what_seeds_leave`)."""
        return role_resources(agent, self.num_agents, self.team_kinds)

    def _pool_covers(self, resource: str) -> bool:
        """The chorus's pooled inventory holds enough `resource`, on the guess that every teammate began
        with what I began with and holds it still (every multi-agent diagnostic seeds its agents alike but
        `chorus_pair` and `chorus_quad`, where each agent holds its own role and the guess drops nothing;
        unclip_craft at 4 agents: oxygen, germanium and silicon one each, so only carbon is anyone's to
        fetch). What I hold counts as it is now (a decoder I craft eats my seeds); a teammate the split
        counts on to craft a decoder from its seeds holds none of them (`mate_seeds`). A wrong guess costs a
        failed chorus, after which the guess is dropped and every agent gathers a whole recipe
        (`_pool_was_short`)."""
        held = self.mate_seeds[resource] + self.items[RESOURCE_SLOTS[resource]]
        return held >= HEART_RECIPE[resource]

    def _near_source(self, resources: list[str]) -> bool:
        """A source of one of `resources` is known within `NEAR_SOURCE` of the team's centre."""
        memory, centre = self.nav.memory, self.nav.centre
        return any(
            abs(cell[0] - centre[0]) + abs(cell[1] - centre[1]) <= NEAR_SOURCE
            for resource in resources
            for name in (f"{resource}_extractor", f"chest_{resource}")
            for cell in memory.known(name)
        )

    def _finder_in_view(self) -> bool:
        """A teammate in view stands next to the known assembler showing heart_a."""
        found = self._assembler_ring()
        if found is None:
            return False
        agents = self.nav.memory.agents
        return any(agents.get(cell) == HEART_A for cell in found[1])

    def _empty_handed(self) -> bool:
        """Back from helping (`_one_short`) without the one kind the team lacks."""
        if self.help_state != DONE or self.self_sufficient:
            return False
        return self._short_kinds() == 1

    def _one_short(self) -> bool:
        """I hold a whole recipe but for one kind, and began so, in a team whose pooled chorus has not
        failed yet (extract-missing: every agent is seeded with all but one kind; an agent that gathered
        three kinds itself, as in agile or radial, does not count: its teammates hold the rest). Then the teammates that hold
        their share help: each searches its own sector for that kind (`frontier_target(exclusive=True)`)
        and comes back to the assembler with it, or with nothing once its sector is searched out; the
        agent whose role holds the kind searches its own sector and then checks the assembler, where a
        helper may wait with the kind (the chorus pools what its members hold)."""
        if self.num_agents <= 1 or self.self_sufficient or self.help_state == DONE or not self.seeded_short:
            return False
        if not (self.skills.explore and self.skills.pathfinding and self.skills.chorus):
            return False
        return self._short_kinds() == 1

    def _short_kinds(self) -> int:
        """How many kinds I hold less of than a whole recipe needs."""
        return sum(1 for r in rules.RESOURCES if self.items[RESOURCE_SLOTS[r]] < HEART_RECIPE[r])

    def _duty(self) -> tuple[str, ...]:
        """My share of the recipe in a team: my role's resources, traded for far sources in my sector.

        A far source (`_far`: farther than `FAR_SOURCE` from the team's centre, or than `FAR_ARM` at the end
        of a straight way, a radial arm) lies in one teammate's sector (see `frontier.own_sector`; counted
        from `Navigator.centre`, a point every teammate agrees on): its owner fetches it, so I take the far
        sources I see in my own sector and leave my role's resources whose only known far sources lie in a
        teammate's sector. A sector owner takes at most its role's size: where more far resources lie in
        one sector than its owner's role holds (a wide room with the extractors in its corners: all four
        lie east and west), those resources stay with the roles, for the owner and its teammates alike (a
        trade both sides cannot agree on sends two agents to one extractor and none to another). Near
        sources and resource chests stay with the roles. A claim is kept once fetched. A claim displaces
        my role's resources whose source I do not know first (`_kept_first`); one I hold takes no slot.
        What an owner drops for its claims, its givers take up (`_taken_up`). Once every teammate was seen
        holding its share (`mates_hold_shares`) and I began one kind short (extract-missing), none of
        them fetches anything any more, and I leave nothing to them. A team whose split counts on decoders
        crafted from seeds (`seed_crafters`) trades nothing: a trade would move the decoder with the kind."""
        if self.num_agents <= 1:
            return self.role
        memory, centre = self.nav.memory, self.nav.centre
        quota = len(self.role)
        owners: dict[str, set[int]] = {}
        # A team whose split counts on seed decoders trades nothing (see the docstring).
        tradable = () if self.seed_crafters else rules.RESOURCES
        for resource in tradable:
            if any(memory.stock[c] > 0 for c in memory.known(f"chest_{resource}")):
                continue  # a stocked chest gives the whole stock at once: the roles split those
            sources = memory.known(f"{resource}_extractor")
            far = [c for c in sources if self._far(c, centre)]
            if far and len(far) == len(sources) and all(_on_axis(c, centre) for c in far):
                owners[resource] = {self.owner_of[direction_of(c, centre)] for c in far}
        # How many far resources lie in each teammate's sector; a sector holding more than its owner's
        # role fetches is traded by nobody.
        load = {
            agent: sum(1 for held in owners.values() if agent in held) for agent in range(self.num_agents)
        }
        fits = {
            resource: {a for a in agents if load[a] <= len(self._role_of(a))}
            for resource, agents in owners.items()
        }
        self.claimed = [r for r in self.claimed if self.items[RESOURCE_SLOTS[r]] >= HEART_RECIPE[r]]
        theirs: set[str] = set()
        for resource, agents in fits.items():
            if resource in self.claimed or not agents:
                continue
            if self.agent_id in agents:
                if len(self.claimed) < quota and not self._pool_covers(resource):
                    self.claimed.append(resource)
            elif not (self.mates_hold_shares and self.seeded_short):
                # One kind short, an owner that holds its share searches nothing any more: it is mine.
                # (Every agent that gathers its share, as in radial, fetched its claims before it did.)
                theirs.add(resource)
        duty = list(self.claimed)
        # A role resource I hold already, or the team's seeds cover (`_pool_covers`), takes no slot: it is
        # fetched, whatever I claim.
        held = [r for r in self.role if self._pool_covers(r) and r not in duty]
        for resource in sorted(self.role, key=self._kept_first):
            if len(duty) < quota and resource not in duty and resource not in theirs and resource not in held:
                duty.append(resource)
        for resource in self._taken_up(fits, theirs):
            if len(duty) < quota and resource not in duty and resource not in held:
                duty.append(resource)
        self.free_slots = quota - len(duty) - len(held)
        duty += held + list(self._spent())  # all an agent the split left without a role fetches
        return tuple(r for r in rules.RESOURCES if r in duty)

    def _spent(self) -> tuple[str, ...]:
        """Kinds the split left to nobody (the team's seeds cover them, `_split_what_seeds_leave`) that I
        have since spent (a decoder crafted from my seeds) and know a source of: mine to fetch again, since
        my teammates still count on my seeds (unclip_craft at 3 agents: a roleless agent's decoder leaves
        the team's oxygen 1 short). Knowing none, the chorus's failure sends the team gathering whole recipes
        and a teammate that knows one fetches it (unclip_craft at 3 agents: a search of the whole map for
        silicon took the rest of the budget where the chorus failed at step 35), unless no teammate is
        guessed to hold any (`mate_seeds`: their seeds went into decoders too): then I search for it."""
        return tuple(
            r
            for r in rules.RESOURCES
            if r not in self.team_kinds
            and not self._pool_covers(r)
            and (self._sources_known(r) or not self.mate_seeds[r])
        )

    def _taken_up(self, fits: dict[str, set[int]], theirs: set[str]) -> list[str]:
        """What I fetch in place of my role's resources that I left to owners (`_duty`): an owner whose far
        claims fill its role's size drops every resource of its role it has no claim on, and a near one
        of those no sector owner fetches either. The agents that left a claim to that owner (its givers,
        in agent order) take its dropped resources up in turn (radial at 3 agents: agent 1's role is
        germanium, near in agent 0's sector; it claimed the carbon far east and dropped germanium, and
        agent 0, which left carbon to it, waited at the assembler while nobody fetched germanium)."""
        mine = [r for r in self.role if r in theirs]
        taken: list[str] = []
        for owner in range(self.num_agents):
            if owner == self.agent_id or not any(owner in fits[r] for r in mine):
                continue
            owner_role = self._role_of(owner)
            claims = [r for r, agents in fits.items() if owner in agents]
            if len(claims) < len(owner_role):
                continue  # it keeps some of its role: which ones depends on what it knows
            dropped = [r for r in owner_role if r not in claims and not fits.get(r) and not self._used_up(r)]
            givers = [
                agent
                for agent in range(self.num_agents)
                if agent != owner and any(owner in fits[r] for r in self._role_of(agent) if r in fits)
            ]
            turn = givers.index(self.agent_id)
            taken.extend(dropped[turn :: len(givers)])
        return taken

    def _far(self, cell: Cell, centre: tuple[float, float]) -> bool:
        """`cell` is far from the team's centre: more than `FAR_SOURCE` away, or more than `FAR_ARM` away
        at the end of a straight way from the centre (a radial arm: the way there is no longer than the
        offset, give or take `ARM_SLACK`). A source seen over a wall, reached by a long way round (agile's
        lanes), stays with the roles below `FAR_SOURCE`."""
        if SHARED_CENTRE and not self.nav.centre_shared:
            return False  # teammates would count its sector from other points (`Navigator.centre_shared`)
        away = abs(cell[0] - centre[0]) + abs(cell[1] - centre[1])
        if away > FAR_SOURCE:
            return True
        if away <= FAR_ARM:
            return False
        field = self.nav.centre_field()
        ways = [field.get(side) for side in self._approach_cells(cell)]
        known = [w for w in ways if w is not None]
        return bool(known) and min(known) + 1 <= away + ARM_SLACK

    def _used_up(self, resource: str) -> bool:
        """Every source of `resource` I know was seen used up: someone fetched it (agile: each extractor
        gives once, and the owner fetched its role's before it claimed), so I do not take it up."""
        memory = self.nav.memory
        extractors = memory.known(f"{resource}_extractor")
        return bool(extractors) and not any(memory.uses_left[e] for e in extractors)

    def _kept_first(self, resource: str) -> int:
        """The order in which a claim leaves room for my role's resources: held ones first, then those
        with a source known (near, or far in my sector: no teammate fetches those), unknown ones last
        (the teammate that gave me my claim may have claimed one of them in its own sector)."""
        if self.items[RESOURCE_SLOTS[resource]] >= HEART_RECIPE[resource]:
            return 0
        return 1 if self._sources_known(resource) else 2

    def _sources_known(self, resource: str) -> bool:
        """A source of `resource` that can still give it is known. A chest seen empty or an extractor
        seen exhausted is none (nor, without the unclip skill, a clipped extractor): the agent keeps
        searching instead of going to the assembler with an incomplete recipe."""
        memory = self.nav.memory
        if any(memory.stock[chest] > 0 for chest in memory.known(f"chest_{resource}")):
            return True
        return any(
            memory.uses_left[e] > 0 and (self.skills.unclip or not memory.clipped[e])
            for e in memory.known(f"{resource}_extractor")
        )

    def _best_source(self, missing: list[str]) -> int | None:
        """Act on the nearest usable source of a missing resource (None if there is none)."""
        memory, nav = self.nav.memory, self.nav
        options: list[tuple[int, str, Cell, str]] = []
        can_craft = sum(1 for r in rules.RESOURCES if self.items[RESOURCE_SLOTS[r]]) >= 3
        for resource in missing:
            for chest in memory.known(f"chest_{resource}"):
                if memory.stock[chest] > 0:
                    options.append((nav.distance(chest), "withdraw", chest, resource))
            for extractor in memory.known(f"{resource}_extractor"):
                if memory.uses_left[extractor] == 0:
                    continue
                if not memory.clipped[extractor]:
                    options.append((nav.distance(extractor), "extract", extractor, resource))
                elif self.skills.unclip and (self.items[rules.DECODER] or can_craft):
                    options.append((nav.distance(extractor) + CLIPPED_DETOUR, "unclip", extractor, resource))
        if not options and self.skills.unclip and not self.items[rules.DECODER] and not can_craft:
            # Only clipped extractors are left for what I miss: fetch the ingredients of a decoder
            # (three different resources) from the extractors that still work.
            clipped_only = any(
                memory.clipped[e] and memory.uses_left[e]
                for r in missing
                for e in memory.known(f"{r}_extractor")
            )
            if clipped_only:
                held = [r for r in rules.RESOURCES if self.items[RESOURCE_SLOTS[r]]]
                for resource in rules.RESOURCES:
                    if resource in held:
                        continue
                    for extractor in memory.known(f"{resource}_extractor"):
                        if memory.uses_left[extractor] and not memory.clipped[extractor]:
                            options.append((nav.distance(extractor), "extract", extractor, resource))
        options.sort(key=lambda option: option[0])
        free = [o for o in options if self._approach_cells(o[2], free_only=True)]
        for _, how, station, resource in free or options:
            if how == "withdraw":
                vibe = rules.VIBE_INDEX[resource + rules.RESOURCE_CHEST_WITHDRAW_SUFFIX]
                return self._use(station, ("withdraw", station), vibe)
            if how == "extract":
                cost = rules.EXTRACTOR_RULES[resource].energy_cost
                return self._use(station, ("extract", station), None, use_cost=cost)
            if self.items[rules.DECODER]:
                return self._use(station, ("unclip", station), None)
            action = self._craft_decoder()
            if action is not None:
                return action
        return None

    def _unclip_spare(self) -> int | None:
        """Holding my share and a decoder I do not need: unclip the nearest clipped extractor I know of.
        A teammate whose share lies behind it may have no decoder left (unclip_preseed gives one per agent
        while one role can hold two clipped resources), and mine has no other use."""
        memory = self.nav.memory
        if self.num_agents <= 1 or not self.skills.unclip or not self.items[rules.DECODER]:
            return None
        clipped = [
            e
            for r in rules.RESOURCES
            for e in memory.known(f"{r}_extractor")
            if memory.clipped[e] and memory.uses_left[e] and self._approach_cells(e)
        ]
        if not clipped:
            return None
        extractor = min(clipped, key=self.nav.distance)
        return self._use(extractor, ("unclip", extractor), None)

    # -- station use -------------------------------------------------------------------------------
    def _approach_cells(self, station: Cell, free_only: bool = False) -> list[Cell]:
        memory = self.nav.memory
        cells = [(station[0] + dr, station[1] + dc) for dr, dc in ORTHOGONAL]
        cells = [c for c in cells if memory.is_free(c)]
        if free_only:
            cells = [c for c in cells if c not in memory.agents or c == self.nav.pos]
        return cells

    def _use(self, station: Cell, key: object, vibe: int | None, use_cost: int = 0) -> int:
        """Walk next to `station`, show `vibe` if one is needed, then move into it."""
        nav = self.nav
        if nav.distance(station) == 1:
            if self.energy_limited and self.energy < max(use_cost, rules.STATION_USE_ENERGY_COST):
                action = self._recharge()
                if action is not None:
                    return action
            if vibe is not None and self.vibe != vibe:
                return vibe_action(vibe)
            return nav.moved(_move_into(nav.pos, station))
        action = self._leave_assembler_vibe(None)
        if action is not None:
            return action
        goals = self._approach_cells(station, free_only=True) or self._approach_cells(station)
        if self._needs_charge(goals, use_cost):
            action = self._recharge()
            if action is not None:
                return action
        action = nav.go_to(goals, key) if goals else None
        return self._explore_or_wander() if action is None else action

    def _explore_or_wander(self) -> int:
        action = self.nav.explore()
        return self.nav.wander() if action is None else action

    def _leave_assembler_vibe(self, action: int | None) -> int | None:
        """Next to an assembler with a vibe that could break (or, for the chorus ablation, complete)
        someone's chorus by accident: go back to default first."""
        if self.vibe == DEFAULT or (self.vibe == HEART_A and self.skills.chorus):
            return action
        return vibe_action(DEFAULT) if self._beside_assembler() else action

    # -- heart and chorus ----------------------------------------------------------------------------
    def _guide(self) -> int | None:
        """A teammate carries the heart our chorus made and may not know the chest, which I know: walk
        there showing `heart_b` (once off the assembler's ring, where it could spoil a chorus), wait while
        no teammate is in view (the carrier follows a `heart_b`, see `_deliver`), and stop `GUIDE_NEAR`
        cells short of the chest: the carrier behind me sees it from there, and a guide standing by it
        would only take one of its sides. None: guiding is over (chest reached, forgotten or out of
        reach), go on as before."""
        nav, memory = self.nav, self.nav.memory
        chests = memory.known("chest")
        sides = self._approach_cells(min(chests, key=nav.distance)) if chests else []
        goals = [c for c in sides if c not in memory.agents]
        if not goals or min(nav.distance(c) for c in goals) < GUIDE_NEAR:
            return self._stop_guiding()
        if self._needs_charge(goals, 0):
            return self._recharge()
        if self.guide_steps == 0:
            return self._stop_guiding()
        beside = self._beside_assembler()
        if self.vibe != HEART_B and not beside:
            return vibe_action(HEART_B)
        if beside and self.vibe not in (DEFAULT, HEART_A):
            return vibe_action(DEFAULT)
        if not memory.agents:
            # Nobody in view: the carrier may have fallen behind; let it catch up. (Any teammate counts: at
            # 4 agents the guides see each other and walk on. Waiting for one not showing heart_b, the
            # carrier, lost 2 tuning episodes of 420 at 4 agents and won none.)
            return rules.NOOP
        action = nav.go_to(goals, ("guide", goals[0]))
        return self._stop_guiding() if action is None else action

    def _stop_guiding(self) -> int | None:
        """Guiding is over: back to `default` if I still show `heart_b` (None: nothing to undo)."""
        self.guide_steps = 0
        return vibe_action(DEFAULT) if self.vibe == HEART_B else None

    def _deliver(self) -> int:
        if self.vibe not in DEPOSIT_VIBES:  # at once: it also tells the chorus we are leaving
            return vibe_action(DEFAULT)
        chests = self.nav.memory.known("chest")
        if not chests:
            action = self._towards_teammate_showing(HEART_B)  # it leads the way to the chest (`_guide`)
            return self._explore_or_wander() if action is None else action
        chest = min(chests, key=self.nav.distance)
        vibe = None if self.vibe in DEPOSIT_VIBES else DEFAULT
        return self._use(chest, ("deposit", chest), vibe)


def _on_axis(cell: Cell, centre: tuple[float, float]) -> bool:
    """`cell` lies clearly in one direction from `centre`: its offset along the main axis is at least
    `AXIS_RATIO` times the offset across it."""
    dr, dc = abs(cell[0] - centre[0]), abs(cell[1] - centre[1])
    return max(dr, dc) >= AXIS_RATIO * min(dr, dc)


def _move_into(pos: Cell, station: Cell) -> int:
    return move_action(pos, station)
