"""Grouping instances by the profile they take, and turning them into host requests.

The profile-based sharing methods (MIG, time-sliced vGPU) pack alike: each workload class takes
one profile (or cannot use the method, for a reason), instances on a partial profile are packed
by count per profile, and instances spanning whole GPUs get one request each. This module holds
that common part; each method supplies its own profile choice and GPU set-up strings.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

from planner.inputs.workloads import Instance, WorkloadClass
from planner.plan import GpuLoad, HostRequest, NotPlaced

__all__ = ["Demand", "NamedProfile", "group_by_profile", "request_for"]


class NamedProfile(Protocol):
    """A sharing profile known by its catalog name (``3g.40gb``, ``16C``)."""

    @property
    def name(self) -> str: ...


ChoiceT = TypeVar("ChoiceT")
ProfileT = TypeVar("ProfileT", bound=NamedProfile)


@dataclass(frozen=True)
class Demand(Generic[ChoiceT, ProfileT]):
    """Eligible instances grouped for packing, most urgent first."""

    shared: dict[str, list[Instance]] = field(default_factory=dict)
    """Instances on partial profiles, per profile name, in hand-out order."""
    whole: list[tuple[Instance, ChoiceT]] = field(default_factory=list)
    """Instances spanning whole GPUs (one request each), with their profile choice."""
    profiles: dict[str, ProfileT] = field(default_factory=dict)
    """The partial profiles in ``shared``, by name."""
    not_placed: list[NotPlaced] = field(default_factory=list)
    """Instances that cannot use the method, with the reason."""


def group_by_profile(
    instances: Sequence[Instance],
    choose: Callable[[WorkloadClass], ChoiceT | str],
    partial_profile: Callable[[ChoiceT], ProfileT | None],
) -> Demand[ChoiceT, ProfileT]:
    """Group ``instances`` by the profile ``choose`` gives their workload class.

    ``choose`` returns a profile choice, or the reason the class cannot use the method (a
    string, which becomes a NotPlaced). ``partial_profile`` returns the profile of a choice
    that takes part of one GPU, or None for a choice spanning whole GPUs. Instances are taken in
    a stable sort by priority (most urgent first, input order within a priority), so queues are
    in hand-out order. ``choose`` is called once per workload class.
    """
    demand: Demand[ChoiceT, ProfileT] = Demand()
    # Where each workload class's instances go, worked out at its first instance: the reason it
    # is not eligible, or its choice and its partial profile's queue (None: whole GPUs). Keyed by
    # object identity: the classes outlive this call, and hashing them is slow.
    routes: dict[int, str | tuple[ChoiceT, list[Instance] | None]] = {}
    for instance in sorted(instances, key=lambda i: i.workload.priority):
        workload = instance.workload
        route = routes.get(id(workload))
        if route is None:
            route = routes[id(workload)] = _route(choose(workload), partial_profile, demand)
        if isinstance(route, str):
            demand.not_placed.append(NotPlaced(instance.id, workload.name, route))
            continue
        choice, queue = route
        if queue is None:
            demand.whole.append((instance, choice))
        else:
            queue.append(instance)
    return demand


def _route(
    choice: ChoiceT | str,
    partial_profile: Callable[[ChoiceT], ProfileT | None],
    demand: Demand[ChoiceT, ProfileT],
) -> str | tuple[ChoiceT, list[Instance] | None]:
    """A class's route: the reason, or its choice with its profile's queue (made if new)."""
    if isinstance(choice, str):
        return choice
    profile = partial_profile(choice)
    if profile is None:
        return choice, None
    demand.profiles[profile.name] = profile
    return choice, demand.shared.setdefault(profile.name, [])


def request_for(
    gpu_model: str,
    loads: tuple[GpuLoad, ...],
    instances: Sequence[Instance],
    *,
    host_group: str = "",
) -> HostRequest:
    """The host request for ``loads`` holding ``instances``: their vCPUs and RAM summed, the
    most urgent priority among them."""
    return HostRequest(
        gpu_model=gpu_model,
        loads=loads,
        cpu_cores=sum(i.workload.vcpus for i in instances),
        ram_gib=sum(i.workload.ram_gib for i in instances),
        priority=min(i.workload.priority for i in instances),
        host_group=host_group,
    )
