"""A second reference set in one click: on a pair with one reference set, offer a human translation
judged as a system (WMT's refB, Human-*) as a reference set (evalcore.analysis.human_reference), or
say exactly what to upload. Shown only where the dataset has fewer than two reference sets."""
from __future__ import annotations

import streamlit as st

from evalcore.analysis import human_reference as H
from pages.common import current_collection, md, show_exception


def render(ds, key: str) -> None:
    if len(ds.ref_ids) >= 2:
        return
    candidates = H.human_translation_systems(ds)
    if not candidates:
        st.info(md(H.upload_advice(ds)))
        return
    with st.container(border=True):
        st.markdown("**This dataset has a second human translation among its systems.** Use it as a second "
                    "reference set:")
        system = (st.selectbox("Human translation", candidates, key=f"{key}_hr_system") if len(candidates) > 1
                  else candidates[0])
        st.markdown("\n".join(f"* {md(line)}" for line in H.what_changes(ds, system)))
        if st.button(f"Use {system} as a second reference set", key=f"{key}_hr_use", type="primary"):
            try:
                from evalcore.io import workspace

                derived = H.with_system_as_reference(ds, system)
                coll = dict(current_collection())
                coll[ds.lp] = derived
                stored = workspace.save(coll, derived.name, source=f"{ds.name}: {system} used as a reference set")
                label = next(f"{m['name']} (saved {m.get('saved_at') or '?'})" for m in workspace.list_saved()
                             if m["name"] == stored)
                st.session_state["dataset_label"] = st.session_state["dataset_select"] = label
                st.rerun()
            except (OSError, ValueError, TimeoutError) as exc:
                st.error(md(str(exc)))
            except Exception as exc:
                show_exception(exc, "Could not add the reference set")
