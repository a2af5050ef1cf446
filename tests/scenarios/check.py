#!/usr/bin/env python3
"""Runs every lecture scenario with the native CLI and checks the key numbers each must show."""
import json, subprocess, sys

AP = sys.argv[1] if len(sys.argv) > 1 else "build/autopar"

def run(name):
    out = subprocess.run([AP, "scenario", name, "--json"], capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        raise SystemExit(f"scenario {name} failed: {out.stderr.strip()}")
    return json.loads(out.stdout)["results"]

checks = {
    # 2.2: six splits, all equal to the single-GPU result; sample split replicates the weights.
    "conv1d-splits": lambda r: len(r["conv1d"]["splits"]) == 6 and all(s["max_abs_diff"] <= 1e-4 for s in r["conv1d"]["splits"]),
    # 2.3: astronomically many strategies (10^11 and 10^22 in the lecture).
    "space-sizes": lambda r: r["alexnet"]["log10_strategies"] > 11 and r["dlrm"]["log10_strategies"] > 21,
    # 2.3: expert < model parallel < data parallel.
    "alexnet-strategies": lambda r: r["expert"]["makespan_ms"] < r["mp"]["makespan_ms"] < r["dp"]["makespan_ms"],
    # 3.2: a task table whose times respect the simulation rule (start >= ready, end > start).
    "task-graph": lambda r: len(r["tasks"]) >= 10 and all(t["start_ms"] >= t["ready_ms"] and t["end_ms"] > t["start_ms"] for t in r["tasks"]),
    # 3.4: AlexNet ranked well; calibration restores DLRM's ranking of the best.
    "simulator-accuracy": lambda r: r["alexnet_ideal"]["kendall_tau"] >= 0.7
        and r["dlrm_calibrated"]["top_kendall_tau"] > r["dlrm_ideal"]["top_kendall_tau"],
    # 3.5: evaluating is much faster than the iteration it simulates.
    "simulator-speed": lambda r: all(r[m]["evaluations_per_s"] * r[m]["simulated_ms"] / 1000 > 1 for m in ("alexnet", "dlrm")),
    # 4.2: MCMC beats the expert strategy on AlexNet; on DLRM it is far faster than data parallel.
    "mcmc-alexnet": lambda r: r["search"]["best_ms"] < r["expert"]["makespan_ms"] < r["dp"]["makespan_ms"],
    "mcmc-dlrm": lambda r: r["search"]["best_ms"] * 100 < r["dp"]["makespan_ms"],
    # 4.4: the exhaustive optimum over 17,576 strategies; MCMC reaches it or lands within 2%.
    "mcmc-vs-exhaustive": lambda r: r["exhaustive"]["strategies_evaluated"] == 17576 and r["exact"] >= 1 and r["within_2_percent"] >= 6,
    # 4.4: a tiny beta is a random walk: worse than a moderate one.
    "beta-sweep": lambda r: r["sweep"][0]["mean_best_ms"] > min(x["mean_best_ms"] for x in r["sweep"][2:]),
    # 5.2: nine specs of a 2-D tensor, 81 pairs; crossing nodes costs more.
    "resharding-table": lambda r: len(r["table"]["table"]) == 81,
    # 5.3: data parallel on the slow axis 0, tensor parallel on the fast axis 1.
    "linear-nine": lambda r: r["plan"]["ops"][0]["input_specs"][0].startswith("S0") and "S1" in r["plan"]["ops"][0]["input_specs"][1],
    # 5.5: Megatron's split with zero resharding on one node.
    # 6.4: one copy across the slow link plus a local all-gather beats four copies across it.
    "cross-mesh-resharding": lambda r: r["plain"]["bytes_across"] == 4 * 4194304 and r["local"]["bytes_across"] == 4194304
        and r["local"]["total_ms"] < r["plain"]["total_ms"] and len(r["local"]["local_steps"]) == 1,
    "megatron": lambda r: [o["strategy"] for o in r["one_node"]["ops"]] == ["column@1", "heads@1", "row@1", "column@1", "row@1"]
        and r["one_node"]["resharding_cost"] == 0,
    # 6.3: several stages whose sub-meshes tile the 32 GPUs; the scenario's question answers "8 stages
    # of half a node" (b), and the lecture's plan (one stage per node) priced by the same model is slower.
    "gpt-pipeline": lambda r: len(r["plan"]["stages"]) >= 2 and sum(s["submesh"][0] * s["submesh"][1] for s in r["plan"]["stages"]) == 32
        and len(r["plan"]["stages"]) == 8 and all(s["submesh"] == [1, 4] for s in r["plan"]["stages"])
        and r["lecture_plan"]["total_latency"] > r["plan"]["total_latency"]
        # The plan run by the schedule model (as the inter-op tab's charts and inter --schedule):
        # the cross-node sends make 1F1B slower than GPipe, and both slower than the closed form.
        and r["schedules"]["1f1b"]["makespan_ms"] > r["schedules"]["gpipe"]["makespan_ms"] > r["plan"]["total_latency"],
    # 6.3: Alpa's plan (inter + intra) is never slower than intra-only or inter-only at any size, and it
    # scales: 4 nodes keep at least 30% of one node's throughput per GPU (the lecture's cluster has one
    # 10 Gb/s NIC per node, which the 8 GPUs' cross-node transfers share: 32% here; 43% while the
    # network was read as one NIC per GPU; the scenario's finding says why this is far below the lecture's 91%).
    "wide-resnet": lambda r: all(row["alpa"]["total_latency"] <= min(row["intra-only"]["total_latency"], row["inter-only"]["total_latency"]) * (1 + 1e-9)
        for row in r["weak_scaling"]) and r["weak_scaling"][-1]["alpa"]["efficiency"] > 0.3,
    # 6.5: GPT-3 175B on 1,024 GPUs: every GPU used, a finite total, several pipeline stages of whole
    # nodes (the planning time is measured by `autopar bench --planner`, not asserted here).
    "gpt3-1024": lambda r: r["gpus_used"] == 1024 and 0 < r["plan"]["total_latency"] < float("inf") and len(r["plan"]["stages"]) >= 2
        and all(s["submesh"][1] == 8 for s in r["plan"]["stages"]),
    # 6.5: every published run's own plan predicted within 15% of its measured iteration time (issue
    # 39's target), Korthikanti et al.'s 8 rows among them, and the held-out rows reported apart.
    # A row on a GPU variant no preset describes (`gpu_variant`: torchtitan's 500 W H100, peak
    # unknown) is priced at the preset's peak, an upper bound: it may only come out fast; so may a row
    # whose plan, as priced, does less work than the run did (`priced_fast_because`).
    "published-runs": lambda r: len(r["rows"]) >= 17
        and all(row["error"] < 0 if row.get("gpu_variant") or row.get("priced_fast_because") else abs(row["error"]) <= 0.15 for row in r["rows"])
        and r["held_out"]["rows"] == sum(1 for row in r["rows"] if not row["fitted"]) >= 10,
    # 7: both plans simulated.
    "flexflow-vs-alpa": lambda r: all(r[m]["flexflow_ms"] > 0 and r[m]["alpa_ms"] > 0 for m in r),
    # 5.5 again: with room the ILP keeps Megatron's tensor parallelism (nothing split along the sequence);
    # under 9 GB it reduce-scatters to the sequence split and fits without ZeRO or recomputation, at more
    # communication; without the sequence strategies the same 9 GB needs recomputation, which costs more.
    "sequence-parallel": lambda r: r["roomy"]["sequence_split_ops"] == 0 and r["roomy"]["reduce_scatter"] == 0
        and r["tight"]["fits"] and r["tight"]["sequence_split_ops"] > 0 and r["tight"]["reduce_scatter_linears"] > 0
        and r["tight"]["all_gather_linears"] > 0 and not r["tight"]["remat"] and r["tight"]["total_bytes"] <= 9e9
        and r["roomy"]["objective"] < r["tight"]["objective"] < r["tight_without_sequence"]["objective"]
        and r["tight_without_sequence"]["remat"],
    # 2.1: attention's sequence enlarges its configurations; splitting every op along the sequence beats
    # data parallelism (one GPU: batch 1) and Megatron's split on one long sequence.
    "context-parallel": lambda r: r["space"]["attention_configs"] > r["space"]["attention_configs_without_sequence"]
        and r["simulate"]["sequence"]["makespan_ms"] < r["simulate"]["expert"]["makespan_ms"] < r["simulate"]["dp"]["makespan_ms"]
        and r["search"]["best_ms"] < r["search"]["init_ms"],
    # 6.5 (issue 41): at 32K tokens the plan as it is does not fit 80 GB; ZeRO-3 shrinks the states but not
    # enough; full recomputation alone fits; selective recomputation saves (almost) nothing under FlashAttention;
    # SP and CP cut the activations; all three savers together fit with the most room.
    "fits-on-80gb": lambda r: not r["plans"][0]["fits"] and r["plans"][3]["fits"] and not r["plans"][5]["fits"]
        and r["plans"][5]["states_bytes"] < r["plans"][0]["states_bytes"] / 3
        and r["plans"][2]["activation_bytes"] < r["plans"][0]["activation_bytes"] and r["plans"][6]["activation_bytes"] < r["plans"][0]["activation_bytes"]
        and r["plans"][7]["total_bytes"] == min(p["total_bytes"] for p in r["plans"]),
}

listed = [s["name"] for s in json.loads(subprocess.run([AP, "scenario", "--list", "--json"], capture_output=True, text=True).stdout)["scenarios"]]
missing = set(listed) ^ set(checks)
if missing:
    raise SystemExit(f"scenarios without a check (or checks without a scenario): {sorted(missing)}")
failed = [name for name in listed if not checks[name](run(name))]
print(f"scenarios: {len(listed) - len(failed)}/{len(listed)} show their key numbers" + (f"; failed: {failed}" if failed else ""))
sys.exit(1 if failed else 0)
