"""rhoflow.atlas: the same experiment as ``rhoflow atlas`` (to the byte), a run whose map holds the
cells' own verdicts, and settings that are not an atlas's refused by name."""
import rhoflow
import pytest


def test_the_experiment_is_the_command_lines(cli):
    code, out, err = cli("atlas", "--d", "5", "--L", "20,40", "--theta-cells", "2", "--dry-run")
    assert code == 0, err
    text = rhoflow.atlas(dry_run=True, d=5, L=(20, 40), theta_cells=2)
    assert out.startswith(text)  # then "# its cells:" and the cells


def test_a_run_maps_its_cells_verdicts(tmp_path):
    # d = 5, L = 20, R = 2 is monotone below theta* in [0.89, 0.93] and not at 1.2.
    r = rhoflow.atlas(tmp_path / "a", d=5, L=20, theta_lo=1.1, theta_hi=1.2, theta_cells=1, threshold_width=0,
                      threads=1, figures=False)
    assert [c.result.verdict for c in r.cells] == ["disproved"]
    assert "| all | fails | fails at θ = 1.2 |" in (tmp_path / "a" / "map" / "atlas.md").read_text()


def test_settings_are_named():
    with pytest.raises(rhoflow.InvalidArgument) as e:
        rhoflow.atlas(dry_run=True, tehta_lo=1)
    assert e.value.parameter == "tehta_lo" and "theta_lo" in str(e.value)
    with pytest.raises(rhoflow.InvalidArgument) as e:
        rhoflow.atlas(dry_run=True, L=21)
    assert e.value.parameter == "alpha" and "2.1" in str(e.value)
