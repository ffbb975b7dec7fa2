"""FileSource.head: a peek at a file's first bytes (the ESA-span reader looks for its column
in the header without reading a large judgements.tsv whole)."""
from __future__ import annotations


def test_file_head_is_the_first_bytes_of_either_kind_of_file(tmp_path):
    from evalcore.io import FileSource

    data = b"system\tseg_id\tesa_spans_json\n" + b"S\t1\t[]\n" * 5000
    (tmp_path / "judgements.tsv").write_bytes(data)
    for src in (FileSource.from_path(tmp_path), FileSource({"judgements.tsv": data}, "mem")):
        assert src.head("judgements.tsv", 4096) == data[:4096]
        assert src.head("judgements.tsv", 10 ** 9) == data
