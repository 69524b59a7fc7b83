"""Figure helpers."""
from rfbench import plotting


def test_dataset_colors_do_not_depend_on_which_datasets_are_present():
    order = ("spambase", "ijcnn1", "letter")
    alone = plotting.dataset_colors(["letter"], order)
    together = plotting.dataset_colors(["spambase", "letter", "a9a"], order)
    assert alone["letter"] == together["letter"] == "C2"
    assert together["a9a"] == "C3"  # not in the order: after it
