"""Tests of planner.measure.metrics on hand-made plans."""

from __future__ import annotations

import dataclasses

import pytest

from planner.measure.metrics import busy_gpu_share, gpu_compute_utilisation, gpu_memory, measure
from planner.measure.result import measure_plan
from planner.methods.registry import Method
from planner.output.report import ScenarioPlan, comparison_frame
from planner.plan import NotPlaced, Placement
from tests.report_fixtures import NIGHT, OFFICE, host, place, plan, scenario, workload


def test_counts_gpus_hosts_and_instances() -> None:
    """GPUs and hosts used count distinct GPUs and hosts; placed and not placed count instances."""
    nb = workload("nb", instances=3, gpus=0.25, memory_gib=10.0)
    s = scenario([nb])
    p = plan(
        Method.VGPU,
        [
            place("nb#1", "h1", 0, memory_gib=20.0),
            place("nb#2", "h1", 0, memory_gib=20.0),
        ],
        not_placed=[NotPlaced("nb#3", "nb", "no room")],
        lower_bound_gpus=1,
    )
    m = measure(p, s)
    assert (m.gpus_used, m.hosts_used, m.gpus_available) == (1, 1, 8)
    assert (m.instances_placed, m.instances_not_placed) == (2, 1)
    assert m.ratio_to_bound == pytest.approx(1.0)


def test_memory_allocated_used_and_utilisation() -> None:
    """Allocated sums the reserved slots; used sums the instances' own memory over GPU capacity."""
    nb = workload("nb", instances=2, gpus=0.25, memory_gib=10.0)
    p = plan(
        Method.VGPU,
        [place("nb#1", "h1", 0, memory_gib=20.0), place("nb#2", "h1", 0, memory_gib=20.0)],
    )
    m = measure(p, scenario([nb]))
    assert m.memory_capacity_gib == pytest.approx(80.0)
    assert m.memory_allocated_gib == pytest.approx(40.0)
    assert m.memory_used_gib == pytest.approx(20.0)
    assert m.memory_utilisation == pytest.approx(0.25)


def test_stranded_memory_counts_slack_in_slots_and_unusable_free_memory() -> None:
    """Slack inside reserved slots is stranded; free memory is stranded only below every request."""
    small = workload("small", gpus=0.25, memory_gib=10.0)
    big = workload("big", gpus=0.5, memory_gib=50.0)
    # GPU 0: small reserves 20 (10 slack), big reserves 50 -> 10 free, usable by 'small' (10 GiB).
    p = plan(
        Method.VGPU,
        [place("small#1", "h1", 0, memory_gib=20.0), place("big#1", "h1", 0, memory_gib=50.0)],
    )
    assert measure(p, scenario([small, big])).stranded_memory_gib == pytest.approx(10.0)
    # With only 'big' workloads asking 50 GiB, the 10 free GiB are stranded too.
    only_big = workload("small", gpus=0.25, memory_gib=50.0)
    q = plan(Method.VGPU, [place("small#1", "h1", 0, memory_gib=60.0)])
    assert measure(q, scenario([only_big])).stranded_memory_gib == pytest.approx(10.0 + 20.0)


def test_passthrough_free_memory_is_all_stranded() -> None:
    """A passthrough GPU holds one instance; memory it does not use is stranded."""
    nb = workload("nb", gpus=0.25, memory_gib=10.0)
    p = plan(Method.PASSTHROUGH, [place("nb#1", "h1", 0, profile="whole GPU", memory_gib=80.0)])
    assert measure(p, scenario([nb])).stranded_memory_gib == pytest.approx(70.0)


def test_compute_utilisation_from_busy_schedule_and_days() -> None:
    """Compute utilisation is gpus × busy × active hours / 24 × days / 7 over GPUs in use."""
    office = workload("office", gpus=1.0, busy_fraction=0.5, schedule=OFFICE, days_per_week=5)
    assert busy_gpu_share(office) == pytest.approx(0.5 * 8 / 24 * 5 / 7)
    p = plan(
        Method.PASSTHROUGH,
        [place("office#1", "h1", 0, profile="whole GPU", memory_gib=80.0)],
    )
    m = measure(p, scenario([office]))
    assert m.compute_utilisation == pytest.approx(0.5 * 8 / 24 * 5 / 7)


def test_gpu_utilisation_is_capped_at_one() -> None:
    """Several always-busy instances on one GPU cannot make it more than fully busy."""
    job = workload("job", instances=3, gpus=0.5, memory_gib=20.0)
    p = plan(Method.REMOTE_POOL, [place(f"job#{i}", "h1", 0, memory_gib=20.0) for i in (1, 2, 3)])
    assert gpu_compute_utilisation(p, scenario([job])) == {("h1", 0): pytest.approx(1.0)}


def test_free_gpus_on_host_without_spare_cpu_are_stranded() -> None:
    """Free GPUs on a host whose cores are all taken cannot be used, so they are stranded."""
    job = workload("job", instances=2, vcpus=32.0, memory_gib=40.0)
    tight = host("h1", gpus=4, cpu_cores=64.0)
    roomy = host("h2", gpus=4, cpu_cores=128.0)
    p = plan(
        Method.VGPU,
        [place("job#1", "h1", 0), place("job#2", "h1", 1)],
        hosts=[tight, roomy],
    )
    m = measure(p, scenario([job], hosts=[tight, roomy]))
    assert m.stranded_gpus == 2


def test_remote_pool_strands_no_gpus_for_cpu() -> None:
    """Remote-pool clients run on any host, so a full GPU server strands no GPU for want of CPU."""
    job = workload("job", instances=2, vcpus=32.0, memory_gib=40.0)
    tight = host("h1", gpus=4, cpu_cores=64.0)
    p = plan(Method.REMOTE_POOL, [place("job#1", "h1", 0), place("job#2", "h1", 1)], hosts=[tight])
    assert measure(p, scenario([job], hosts=[tight])).stranded_gpus == 0


def test_ratio_to_bound_none_when_bound_is_zero() -> None:
    """With nothing to place the bound is 0 and the ratio is undefined (None), not a division."""
    m = measure(plan(Method.MIG, [], lower_bound_gpus=0), scenario([workload("a")]))
    assert m.ratio_to_bound is None


def test_mig_slice_no_profile_can_start_at_is_stranded() -> None:
    """3g.40gb@0 and 1g.10gb@4,5,6 leave slice 7 free, where only 7g may start: it is stranded."""
    from planner.inputs.catalog import load_catalog

    catalog = load_catalog()
    small = workload("small", gpus=0.1, memory_gib=10.0)
    big = workload("big", gpus=0.4, memory_gib=40.0)
    s = dataclasses.replace(scenario([small, big]), catalog=catalog)

    def mig(instance: str, profile: str, memory: float, start: int) -> Placement:
        return dataclasses.replace(
            place(instance, "h1", 0, profile=profile, memory_gib=memory, start_slice=start),
            gpu_model="H100-80GB-PCIe",
        )

    layout = [mig("big#1", "3g.40gb", 40.0, 0)] + [
        mig(f"small#{i}", "1g.10gb", 10.0, start) for i, start in ((1, 4), (2, 5), (3, 6))
    ]
    assert measure(plan(Method.MIG, layout), s).stranded_memory_gib == pytest.approx(10.0)
    # With slices 4-7 free, a 1g.10gb still fits: the free memory is not stranded.
    roomy = layout[:1]
    assert measure(plan(Method.MIG, roomy), s).stranded_memory_gib == pytest.approx(0.0)


def test_remote_pool_memory_counts_the_busiest_hour_not_the_sum() -> None:
    """Pool memory is held only while an instance runs: a day and a night job share 40 GiB."""
    day = workload("day", gpus=0.5, memory_gib=40.0, schedule=OFFICE)
    night = workload("night", gpus=0.5, memory_gib=40.0, schedule=NIGHT)
    p = plan(
        Method.REMOTE_POOL,
        [
            place("day#1", "h1", 0, memory_gib=40.0),
            place("night#1", "h1", 0, memory_gib=40.0),
        ],
    )
    m = measure(p, scenario([day, night]))
    assert m.memory_used_gib == pytest.approx(40.0)
    assert m.memory_allocated_gib == pytest.approx(40.0)
    assert m.memory_utilisation == pytest.approx(0.5)


def _vgpu_16c(count: int) -> list[Placement]:
    return [
        place(f"sixteen#{i}", "h1", 0, profile="16C", memory_gib=16.0) for i in range(1, count + 1)
    ]


def test_memory_utilisation_stays_within_one_when_nvidia_oversubscribes() -> None:
    """NVIDIA allows six H100 16C vGPUs (96 GiB) on an 80 GiB GPU: capacity counts the 96 GiB
    reserved, so memory utilisation is 1.0, never above its [0-1] range."""
    sixteen = workload("sixteen", instances=6, gpus=0.1, memory_gib=16.0)
    p = plan(Method.VGPU, _vgpu_16c(6))
    m = measure(p, scenario([sixteen]))
    assert m.memory_capacity_gib == pytest.approx(96.0)
    assert m.memory_utilisation == pytest.approx(1.0)
    per_gpu = gpu_memory(p, scenario([sixteen]))[("h1", 0)]
    assert (per_gpu.capacity_gib, per_gpu.reserved_gib) == (pytest.approx(96.0), 96.0)
    assert per_gpu.utilisation == pytest.approx(1.0)


def test_memory_capacity_is_the_frame_buffer_when_reservations_fit() -> None:
    """Five 16C vGPUs reserve 80 GiB of an 80 GiB GPU: capacity stays the physical 80 GiB."""
    sixteen = workload("sixteen", instances=5, gpus=0.1, memory_gib=8.0)
    p = plan(Method.VGPU, _vgpu_16c(5))
    per_gpu = gpu_memory(p, scenario([sixteen]))[("h1", 0)]
    assert per_gpu.capacity_gib == pytest.approx(80.0)
    assert per_gpu.used_gib == pytest.approx(40.0)
    assert per_gpu.utilisation == pytest.approx(0.5)


@pytest.mark.parametrize(
    ("method", "profile"),
    [(Method.PASSTHROUGH, "whole GPU"), (Method.VGPU, "80C"), (Method.MIG, "7g.80gb")],
)
def test_instance_spread_over_more_gpus_than_its_compute_asks(method: Method, profile: str) -> None:
    """A 0.5-GPU, 100 GiB instance holds two 80 GiB GPUs whatever the method: each GPU carries
    half its memory (50 GiB, so 30 GiB stranded per GPU) and a quarter GPU of its compute."""
    wide = workload("wide", gpus=0.5, memory_gib=100.0)
    rows = [
        place("wide#1", "h1", gpu, profile=profile, memory_gib=80.0, start_slice=0)
        for gpu in (0, 1)
    ]
    p = plan(method, rows)
    m = measure(p, scenario([wide]))
    assert m.stranded_memory_gib == pytest.approx(60.0)
    assert m.compute_utilisation == pytest.approx(0.25)
    assert gpu_compute_utilisation(p, scenario([wide])) == {
        ("h1", 0): pytest.approx(0.25),
        ("h1", 1): pytest.approx(0.25),
    }
    assert gpu_memory(p, scenario([wide]))[("h1", 1)].used_gib == pytest.approx(50.0)


def test_remote_pool_gpu_memory_counts_its_busiest_hour() -> None:
    """A pooled GPU holding a day and a night job of 40 GiB each uses 40 GiB at most at once."""
    day = workload("day", gpus=0.5, memory_gib=40.0, schedule=OFFICE)
    night = workload("night", gpus=0.5, memory_gib=40.0, schedule=NIGHT)
    p = plan(
        Method.REMOTE_POOL,
        [place("day#1", "h1", 0, memory_gib=40.0), place("night#1", "h1", 0, memory_gib=40.0)],
    )
    per_gpu = gpu_memory(p, scenario([day, night]))[("h1", 0)]
    assert (per_gpu.capacity_gib, per_gpu.reserved_gib, per_gpu.used_gib) == (80.0, 40.0, 40.0)


def test_a_plan_s_utilisation_is_worked_out_once_per_class_and_gpus_held(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Measuring a plan (metrics and cost) works out the busy share of each class holding
    each number of GPUs once, not once per placement: six notebooks and a 2-GPU job ask for
    two shares, and the figures are those of every placement summed."""
    from planner.inputs.workloads import WorkloadClass
    from planner.measure import metrics
    from planner.measure.result import measure_plan

    nb = workload("nb", instances=6, gpus=0.25, memory_gib=10.0, busy_fraction=0.5)
    job = workload("job", instances=1, gpus=2.0, memory_gib=80.0)
    p = plan(
        Method.REMOTE_POOL,
        [place(f"nb#{i}", "h1", i % 2, memory_gib=10.0) for i in range(1, 7)]
        + [place("job#1", "h2", g, memory_gib=80.0) for g in (0, 1)],
    )
    s = scenario([nb, job])
    expected = gpu_compute_utilisation(p, s)
    asked: list[tuple[str, int | None]] = []

    def counted_share(workload: WorkloadClass, gpus: int | None = None) -> float:
        asked.append((workload.name, gpus))
        return busy_gpu_share(workload, gpus)

    monkeypatch.setattr(metrics, "busy_gpu_share", counted_share)
    result = measure_plan(p, s)

    assert sorted(asked) == [("job", 2), ("nb", 1)]
    assert result.metrics.compute_utilisation == sum(expected.values()) / len(expected)
    assert expected[("h1", 0)] == pytest.approx(3 * busy_gpu_share(nb))


def test_a_plan_using_no_gpu_has_no_utilisation() -> None:
    """Utilisation is a share of the GPUs in use: a plan that places nothing has none (None),
    as the workbook and the dashboard show it ('no GPU used', blank, '–'); it read 0.0, as if
    its GPUs stood idle. Its comparison row is blank there too."""
    big = workload("big", instances=1, gpus=1.0, memory_gib=500.0)
    p = plan(Method.PASSTHROUGH, [], not_placed=[NotPlaced("big#1", "big", "no GPU holds it")])
    s = scenario([big])
    m = measure(p, s)
    assert m.gpus_used == 0
    assert (m.memory_utilisation, m.compute_utilisation) == (None, None)
    row = comparison_frame(ScenarioPlan(s, "fit", None, (measure_plan(p, s),))).iloc[0]
    assert row[["memory_utilisation", "compute_utilisation"]].isna().all()


def test_a_plan_using_gpus_has_a_utilisation_of_them() -> None:
    """With one GPU in use, the utilisation is a share of it, 0 included."""
    nb = workload("nb", instances=1, gpus=0.25, memory_gib=10.0)
    p = plan(Method.VGPU, [place("nb#1", "h1", 0, memory_gib=20.0)])
    m = measure(p, scenario([nb]))
    assert m.memory_utilisation == pytest.approx(10.0 / 80.0)
    assert m.compute_utilisation is not None
    assert 0 < m.compute_utilisation <= 1
