"""How an Alibaba openb pod list's gpu_spec is read when it is not written as the trace writes
it: a family the trace names (V100), a saved Python list, models separated by '/' or spaces."""

from __future__ import annotations

import pytest

from planner.inputs.alibaba_trace import TracePods, load_pod_list
from planner.inputs.catalog import Catalog, load_catalog
from planner.inputs.problems import InputError, Loaded

NODE_MODELS = ["P100", "V100M16", "V100M32", "T4"]
"""GPU models of the trace's node list the pods are planned on."""


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def _read(catalog: Catalog, spec: str, gpu_models: list[str] = NODE_MODELS) -> Loaded[TracePods]:
    pods = f'name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\np-0,1000,1024,1,500,"{spec}"\n'
    return load_pod_list(pods.encode(), catalog, file_name="pods.csv", gpu_models=gpu_models)


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        (
            "V100",
            "GPU model 'V100' (1 pod, first on row 2) is read as V100M16|V100M32: the trace's "
            "models of that family, any of them, as the trace's README reads such a gpu_spec; "
            "to allow one only, write its name",
        ),
        (
            "['V100M16', 'V100M32']",
            "1 pod, first on row 2, writes gpu_spec as a Python list (['V100M16', 'V100M32']): "
            "read as separated by '|', as the trace writes them",
        ),
        (
            "V100M16/V100M32",
            "1 pod, first on row 2, separates models by '/' or spaces: read as separated by "
            "'|', as the trace writes them",
        ),
        (
            "V100M16 V100M32",
            "1 pod, first on row 2, separates models by '/' or spaces: read as separated by "
            "'|', as the trace writes them",
        ),
    ],
)
def test_a_gpu_spec_written_otherwise_allows_the_trace_models_it_means_and_says_so(
    catalog: Catalog, spec: str, said: str
) -> None:
    """The trace's README reads V100M16|V100M32 as 'a V100 of 16 or 32 GB', so 'V100' allows
    both; a Python list's brackets and quotes, and '/' or spaces between models, are no part
    of a model name. Each pod is planned on the V100 nodes, no problem, and a note says how its
    gpu_spec was read."""
    loaded = _read(catalog, spec)
    (pods,) = loaded.value.workloads
    assert pods.gpu_models == ("V100M16", "V100M32")
    assert loaded.problems == ()
    assert said in [n.text for n in loaded.value.notes if n.locator == "gpu_spec"]


def test_a_family_on_an_inventory_without_the_trace_models_keeps_its_catalog_reading(
    catalog: Catalog,
) -> None:
    """On one's own inventory of catalog V100s, 'V100' is read by its vendor's name as before
    (a catalog V100), not as the trace's V100 models, which those nodes lack; a part that is no
    model keeps the whole text one model name, which no node has: a problem names it."""
    own = _read(catalog, "V100", ["V100-16GB-SXM"]).value
    assert [w.gpu_models for w in own.workloads] == [("V100-16GB-SXM",)]
    with pytest.raises(InputError) as refused:
        _read(catalog, "V100M16/X9")
    assert "pod p-0 may only use V100M16/X9, which no node has" in str(refused.value)
