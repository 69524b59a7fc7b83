"""Parsers on the real mirrored files (counts from PROVENANCE.md) and on small hand-made files."""
import bz2
import gzip
import hashlib

import numpy as np
import pytest

from rfbench.dataset import DatasetError
from rfbench.dataset.parsers import parse_file

CSV_NO_HEADER = {"delimiter": ",", "header": False}


@pytest.fixture(scope="module")
def parsed(real_file):
    """``parsed(config, key, fmt, options, n_features)``, memoized: big files are parsed once."""
    memo = {}

    def get(config, key, fmt, options, n_features):
        if (config, key) not in memo:
            memo[config, key] = parse_file(real_file(config, key), fmt, options, n_features)
        return memo[config, key]
    return get


@pytest.mark.parametrize("config, key, fmt, options, shape, label_counts", [
    ("spambase", "data", "csv", {"label_column": -1, **CSV_NO_HEADER}, (4601, 57), {0: 2788, 1: 1813}),
    ("ijcnn1", "train", "libsvm", {}, (49990, 22), {-1: 45137, 1: 4853}),
    ("ijcnn1", "test", "libsvm", {}, (91701, 22), {-1: 82989, 1: 8712}),
    ("cod_rna", "train", "csv", {"label_column": 0, **CSV_NO_HEADER}, (59535, 8), {-1: 39690, 1: 19845}),
    ("a9a", "train", "libsvm", {}, (32561, 123), {-1: 24720, 1: 7841}),
    ("a9a", "test", "libsvm", {}, (16281, 123), {-1: 12435, 1: 3846}),
    # 41 features, 3 of them symbolic with 3, 66 and 11 values; 97,278 of the rows are "normal.".
    ("kddcup99", "data", "csv", {"label_column": -1, "categorical": [1, 2, 3], "label_map": {"normal.": "normal"},
                                 "label_default": "attack"}, (494021, 118), {"attack": 396743, "normal": 97278}),
])
def test_real_files_match_provenance_counts(parsed, config, key, fmt, options, shape, label_counts):
    X, y = parsed(config, key, fmt, options, shape[1])
    assert X.shape == shape and X.dtype == np.float64
    labels, counts = np.unique(y, return_counts=True)
    assert dict(zip(labels.tolist(), counts.tolist())) == label_counts


def test_letter_has_20000_rows_16_features_26_letter_classes(real_file):
    X, y = parse_file(real_file("letter", "data"), "csv", {"label_column": 0, **CSV_NO_HEADER}, 16)
    assert X.shape == (20000, 16)
    assert np.unique(y).tolist() == [chr(c) for c in range(ord("A"), ord("Z") + 1)]
    assert (y == "A").sum() == 789 and (y == "Z").sum() == 734


def test_libsvm_values_match_a_plain_python_reading(parsed, real_file):
    path = real_file("ijcnn1", "test")
    X, y = parsed("ijcnn1", "test", "libsvm", {}, 22)
    with bz2.open(path, "rt") as f:
        lines = [next(f) for _ in range(50)]
    for row, line in enumerate(lines):
        label, *pairs = line.split()
        expected = np.zeros(22)
        for pair in pairs:
            index, value = pair.split(":")
            expected[int(index) - 1] = float(value)
        assert y[row] == float(label)
        np.testing.assert_array_equal(X[row], expected)


def test_csv_values_match_numpy_loadtxt(parsed, real_file):
    path = real_file("spambase", "data")
    X, y = parsed("spambase", "data", "csv", {"label_column": -1, **CSV_NO_HEADER}, 57)
    raw = np.loadtxt(path, delimiter=",")
    np.testing.assert_array_equal(X, raw[:, :-1])
    np.testing.assert_array_equal(y, raw[:, -1])


LIBSVM_TEXT = "+1 1:0.5 3:2\n-1 2:-1.5\n# a comment line\n+1 1:1 2:2 3:3\n"
LIBSVM_X = np.array([[0.5, 0, 2, 0, 0], [0, -1.5, 0, 0, 0], [1, 2, 3, 0, 0]])


@pytest.mark.parametrize("suffix, opener", [("", open), (".gz", gzip.open), (".bz2", bz2.open)])
def test_libsvm_plain_and_compressed_give_same_dense_array_of_configured_width(tmp_path, suffix, opener):
    path = tmp_path / f"data{suffix}"
    with opener(path, "wt") as f:
        f.write(LIBSVM_TEXT)
    X, y = parse_file(path, "libsvm", {}, 5)
    np.testing.assert_array_equal(X, LIBSVM_X)
    np.testing.assert_array_equal(y, [1, -1, 1])


@pytest.mark.parametrize("bad_line, reason", [
    ("-1 2:x", "is not <index>:<value>"),
    ("-1 9:1", "within 1..5"),
    ("-1 0:1", "within 1..5"),
    ("-1 3:1 2:1", "increasing"),
    ("spam 1:1", "label 'spam'"),
])
def test_malformed_libsvm_line_is_named_by_file_and_line_number(tmp_path, bad_line, reason):
    path = tmp_path / "bad.txt"
    path.write_text(f"+1 1:1\n+1 2:1\n{bad_line}\n+1 3:1\n")
    with pytest.raises(DatasetError, match=rf"bad\.txt, line 3: .*{reason}"):
        parse_file(path, "libsvm", {}, 5)


def test_csv_with_header_label_by_name_gzip_and_string_labels(tmp_path):
    path = tmp_path / "d.csv.gz"
    with gzip.open(path, "wt") as f:
        f.write("a,cls,b\n1,x,2\n3,y,4\n5,x,6\n")
    X, y = parse_file(path, "csv", {"label_column": "cls", "header": True}, 2)
    np.testing.assert_array_equal(X, [[1, 2], [3, 4], [5, 6]])
    assert y.tolist() == ["x", "y", "x"]


def test_tsv_defaults_to_tab_delimiter(tmp_path):
    path = tmp_path / "d.tsv"
    path.write_text("f1\tf2\ttarget\n1\t2\t0\n3\t4\t1\n")
    X, y = parse_file(path, "tsv", {"label_column": "target", "header": True}, 2)
    np.testing.assert_array_equal(X, [[1, 2], [3, 4]])
    np.testing.assert_array_equal(y, [0, 1])


def test_skip_rows_drop_columns_and_one_hot_in_place(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("3,counts,,\nid,proto,size,cls\n7,tcp,1.5,a\n8,udp,2.5,b\n9,tcp,3.5,a\n")
    X, y = parse_file(path, "csv", {"label_column": "cls", "header": True, "skip_rows": 1,
                                    "drop_columns": ["id"], "categorical": [1]}, 3)
    # proto -> [proto_tcp, proto_udp] where proto stood, then size.
    np.testing.assert_array_equal(X, [[1, 0, 1.5], [0, 1, 2.5], [1, 0, 3.5]])
    assert y.tolist() == ["a", "b", "a"]


def test_ordinal_codes_a_columns_levels_1_2_and_refuses_a_value_it_does_not_list(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("vhigh,2,small,a\nlow,5more,big,b\nmed,3,med,a\n")
    levels = {0: ["low", "med", "high", "vhigh"], 1: ["2", "3", "4", "5more"]}
    X, y = parse_file(path, "csv", {"label_column": -1, "ordinal": levels, "categorical": [2]}, 5)
    # buying and doors by their levels' positions, lug_boot one-hot (big, med, small) in place
    np.testing.assert_array_equal(X, [[4, 1, 0, 0, 1], [1, 4, 1, 0, 0], [2, 2, 0, 1, 0]])
    assert y.tolist() == ["a", "b", "a"]
    with pytest.raises(DatasetError, match=r"column 0 has values \['vhigh'\] that are not among its ordinal levels"):
        parse_file(path, "csv", {"label_column": -1, "ordinal": {0: ["low", "med", "high"]}, "categorical": [1, 2]},
                   None)


def test_label_map_names_classes_and_label_default_takes_the_rest(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("1,normal.\n2,smurf.\n3,neptune.\n4,normal.\n")
    options = {"label_column": -1, "label_map": {"normal.": "normal"}}
    _, y = parse_file(path, "csv", {**options, "label_default": "attack"}, 1)
    assert y.tolist() == ["normal", "attack", "attack", "normal"]
    with pytest.raises(DatasetError, match=r"labels \['neptune.', 'smurf.'\] are not in label_map.*label_default"):
        parse_file(path, "csv", options, 1)


def test_numeric_labels_are_mapped_by_their_text(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("1,3\n2,1\n3,2\n")
    _, y = parse_file(path, "csv", {"label_column": -1, "label_map": {3: "normal"}, "label_default": "sick"}, 1)
    assert y.tolist() == ["normal", "sick", "sick"]


@pytest.mark.parametrize("text, options, n_features, message", [
    ("1,2,0\n3,4,1\n", {"label_column": 0}, 3, "2 feature columns, but the config says n_features=3"),
    ("1,a,0\n3,b,1\n", {"label_column": -1}, 2, "feature column 1 is not numeric"),
    ("1,2,0\n", {"label_column": "y"}, 2, "label_column: no column 'y'"),
    ("1,2,0\n", {"label_column": 5}, 2, "label_column 5 out of range for 3 columns"),
    ("1,2,0\n", {"label_column": -1, "drop_columns": [3]}, 1, "drop_columns 3 out of range for 3 columns"),
    ("1,2,0\n", {"label_column": -1, "categorical": ["p"]}, 1, "categorical: no column 'p'"),
    ("1,a,0\n", {"label_column": -1}, 1, "or list it in categorical or drop_columns"),
    ("1,nan,0\n3,4,1\n", {"label_column": -1}, 2, "non-finite value nan in data row 1, feature 2"),
    ("1,inf,0\n", {"label_column": -1}, 2, "non-finite value inf"),
])
def test_bad_csv_content_is_reported_with_the_file(tmp_path, text, options, n_features, message):
    path = tmp_path / "d.csv"
    path.write_text(text)
    with pytest.raises(DatasetError, match="d.csv") as err:
        parse_file(path, "csv", options, n_features)
    assert message in str(err.value)


@pytest.mark.parametrize("fmt, options, message", [
    ("arff", {}, "unknown format 'arff'; valid formats: libsvm, csv, tsv"),
    ("csv", {}, "missing options ['label_column']"),
    ("csv", {"label_column": 0, "sep": ";"}, "unknown options ['sep']"),
    ("libsvm", {"label_column": 0}, "valid options: none"),
])
def test_unknown_format_or_options_list_valid_choices(tmp_path, fmt, options, message):
    with pytest.raises(DatasetError) as err:
        parse_file(tmp_path / "unused", fmt, options, 3)
    assert message in str(err.value)


CTG_TEXT_COLUMNS = ["FileName", "Date", "SegFile"]


def test_excel_reads_the_real_ctg_sheet_without_its_blank_and_summary_rows(real_file):
    # PROVENANCE.md: 2,126 data rows, 40 columns; UCI's NSP counts 1,655 normal, 295 suspect, 176
    # pathologic. The first row (CTG0001.txt) reads b = 240, e = 357, LBE = LB = 120 in the sheet.
    path = real_file("ctg_li", "data")
    X, y = parse_file(path, "excel", {"sheet": "Raw Data", "label_column": "NSP",
                                      "drop_columns": [*CTG_TEXT_COLUMNS, "CLASS"]}, 35)
    assert X.shape == (2126, 35)
    assert X[0, :4].tolist() == [240, 357, 120, 120]
    labels, counts = np.unique(y, return_counts=True)
    assert labels.tolist() == [1, 2, 3] and counts.tolist() == [1655, 295, 176]
    _, y10 = parse_file(path, "excel", {"sheet": "Raw Data", "label_column": -2,
                                        "drop_columns": [*CTG_TEXT_COLUMNS, "NSP"]}, 35)
    assert np.unique(y10).tolist() == list(range(1, 11))


@pytest.mark.parametrize("options, message", [
    ({"sheet": "Sheet1", "label_column": "NSP"}, "no sheet 'Sheet1'; sheets: ['Description', 'Data', 'Raw Data']"),
    ({"sheet": "Raw Data", "label_column": "NSP"}, "feature column 'FileName' is not numeric"),
    ({"sheet": "Raw Data", "label_column": "nsp"}, "label_column: no column 'nsp'"),
])
def test_excel_errors_name_the_sheet_or_column(real_file, options, message):
    with pytest.raises(DatasetError) as err:
        parse_file(real_file("ctg_li", "data"), "excel", options, 35)
    assert message in str(err.value)


def test_excel_refuses_a_file_that_is_not_a_workbook(tmp_path):
    path = tmp_path / "d.xls"
    path.write_text("1,2,0\n")
    with pytest.raises(DatasetError, match="d.xls: cannot read as an .xls workbook"):
        parse_file(path, "excel", {"sheet": "Data", "label_column": 0}, 2)


def _write_idx(path, array, type_code=0x08, compress=False):
    """An IDX file by its published layout: 00 00, type code, ndim, big-endian uint32 dims, data."""
    body = bytes([0, 0, type_code, array.ndim]) + np.array(array.shape, ">u4").tobytes() + array.tobytes()
    (gzip.open if compress else open)(path, "wb").write(body)
    return path


def test_idx_images_are_flattened_in_c_order_and_labels_come_from_the_companion(tmp_path):
    images = np.arange(3 * 2 * 2, dtype=np.uint8).reshape(3, 2, 2) * 20
    x = _write_idx(tmp_path / "x.idx.gz", images, compress=True)
    y = _write_idx(tmp_path / "y.idx", np.array([7, -1, 300], ">i4"), type_code=0x0C)
    X, labels = parse_file(x, "idx", {}, 4, labels=y)
    assert X.dtype == np.float64
    np.testing.assert_array_equal(X, [[0, 20, 40, 60], [80, 100, 120, 140], [160, 180, 200, 220]])
    assert labels.tolist() == [7, -1, 300]


@pytest.mark.parametrize("damage, message", [
    (lambda b: b"\x01" + b[1:], "not an IDX file (magic bytes 01000803"),
    (lambda b: b[:2] + b"\x07" + b[3:], "not an IDX file"),
    (lambda b: b[:-1], "but 11 bytes of data follow (truncated?)"),
    (lambda b: b[:6], "IDX header truncated: 3 dimensions announced, 2 of their 12 bytes"),
])
def test_damaged_idx_files_are_refused_naming_the_file(tmp_path, damage, message):
    good = _write_idx(tmp_path / "good.idx", np.zeros((3, 2, 2), np.uint8)).read_bytes()
    (tmp_path / "bad.idx").write_bytes(damage(good))
    labels = _write_idx(tmp_path / "y.idx", np.zeros(3, np.uint8))
    with pytest.raises(DatasetError, match="bad.idx") as err:
        parse_file(tmp_path / "bad.idx", "idx", {}, 4, labels=labels)
    assert message in str(err.value)


@pytest.mark.parametrize("n_labels, n_features, message", [
    (2, 4, "(2,) labels for the 3 samples"),
    (3, 5, "samples of 4 values, but the config says n_features=5"),
])
def test_idx_labels_and_width_must_match_the_samples(tmp_path, n_labels, n_features, message):
    x = _write_idx(tmp_path / "x.idx", np.zeros((3, 2, 2), np.uint8))
    y = _write_idx(tmp_path / "y.idx", np.zeros(n_labels, np.uint8))
    with pytest.raises(DatasetError) as err:
        parse_file(x, "idx", {}, n_features, labels=y)
    assert message in str(err.value)


@pytest.mark.parametrize("fmt, options, labels, message", [
    ("idx", {}, None, "format 'idx' keeps its labels in a companion file: add 'labels'"),
    ("csv", {"label_column": 0}, "y.idx", "format 'csv' has its labels in the file itself: remove 'labels'"),
])
def test_a_companion_label_file_is_required_exactly_by_idx(tmp_path, fmt, options, labels, message):
    with pytest.raises(DatasetError) as err:
        parse_file(tmp_path / "unused", fmt, options, 3, labels=labels and tmp_path / labels)
    assert message in str(err.value)


def test_mirrored_mnist_training_images_decompress_to_the_official_file(real_file):
    # PROVENANCE.md: the mirror's .gz was rebuilt; its decompressed bytes have the official
    # train-images-idx3-ubyte md5 6bbc9ace898e44ae57da46a324031adb.
    with gzip.open(real_file("mnist", "train"), "rb") as f:
        assert hashlib.md5(f.read()).hexdigest() == "6bbc9ace898e44ae57da46a324031adb"
