#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Builds the tests/fixtures/roce-*/ roots: one correct lossless RoCE host from the real mlnx_qos and
# show_gids capture of the shared corpus, and one variant per broken link of the chain. Run once
# (python3 tests/roce/mkfixtures.py [--corpus DIR]; default tests/captures); the output is committed.
# What is copied verbatim and what is reconstructed is written into each SOURCE.md.
import argparse
import importlib.util
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("mlxfix", os.path.join(HERE, "..", "mlx", "mkfixtures.py"))
mlxfix = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mlxfix)

QOS_CAPTURE = "ethtool/cx5_mlnx_qos_dcbx-firmware-controlled_pfc-prio3_and_show_gids_blog.txt"
BDF = ["0001:43:00.0", "0001:43:00.1"]
ND = ["mce0", "mce1"]
DEV = ["mlx5_0", "mlx5_1"]
ADDR = ["c0a8:0684", "c0a8:0784"]  # 192.168.6.132 (captured), 192.168.7.132 (reconstructed)
V1, V2 = "IB/RoCE v1", "RoCE v2"


class Root(mlxfix.Root):
    def done(self, title):
        with open(os.path.join(self.dir, "SOURCE.md"), "w") as f:
            f.write(f"# {self.name}: {title}\n\n")
            f.write("Built by `tests/roce/mkfixtures.py` from `/work/shared/corpus/` (see its "
                    "INDEX.md for the provenance of each file). The base host is the same for every "
                    "roce-* fixture; the last line says what this one changes.\n\n")
            for s in self.sources:
                f.write(f"- {s}\n")


def qos_text():
    """The captured `mlnx_qos -i mce0` block (everything before the show_gids table)."""
    with open(os.path.join(mlxfix.CORPUS, QOS_CAPTURE)) as f:
        return f.read().split("\n\n")[0] + "\n"


def gids(i, types=(V1, V2, V1, V2)):
    mac = ["9640:c9ff:fe8c:a09c", "9640:c9ff:fe8c:a09d"][i]
    vals = [f"fe80:0000:0000:0000:{mac}", f"fe80:0000:0000:0000:{mac}",
            f"0000:0000:0000:0000:0000:ffff:{ADDR[i]}", f"0000:0000:0000:0000:0000:ffff:{ADDR[i]}"]
    out = {}
    for k, (g, t) in enumerate(zip(vals, types)):
        out[f"gids/{k}"] = g
        out[f"gid_attrs/types/{k}"] = t
        out[f"gid_attrs/ndevs/{k}"] = ND[i]
    out["gids/4"] = "0000:0000:0000:0000:0000:0000:0000:0000"  # an empty slot of the table
    return out


def ethtool_stats(storm=False):
    return ("NIC statistics:\n"
            "     rx_packets: 1897223104\n"
            "     tx_packets: 2102948211\n"
            "     rx_discards_phy: 0\n"
            "     rx_prio0_discards: 0\n"
            f"     rx_prio3_discards: {1234 if storm else 0}\n"
            "     rx_prio3_pause: 142\n"
            "     rx_prio3_pause_duration: 1247\n"
            "     tx_prio3_pause: 87\n"
            "     tx_prio3_pause_duration: 530\n"
            "     rx_prio3_pause_transition: 71\n"
            f"     tx_pause_storm_warning_events: {3 if storm else 0}\n"
            f"     tx_pause_storm_error_events: {2 if storm else 0}\n")


HW = ["out_of_sequence", "packet_seq_err", "local_ack_timeout_err", "implied_nak_seq_err",
      "np_cnp_sent", "np_ecn_marked_roce_packets", "rp_cnp_handled", "rp_cnp_ignored",
      "roce_adp_retrans"]


def base(name, qos=None, ecn_np=None, cnp=(48, 6), tos=106, gid_types=None, storm=False,
         dcb=None):
    """qos, ecn_np, gid_types: per port (list of 2) or None for the captured/default one."""
    r = Root(name)
    r.write("proc/sys/kernel/hostname", name + "\n")
    r.write("sys/kernel/config/rdma_cm/.hwcheck-keep", "")
    for i in range(2):
        r.function(BDF[i], 0x1017, netdevs=[ND[i]], rdma=[DEV[i]])
        port = {"state": "4: ACTIVE", "phys_state": "5: LinkUp", "rate": "100 Gb/sec (4X EDR)",
                "link_layer": "Ethernet"}
        port.update(gids(i, gid_types[i] if gid_types else (V1, V2, V1, V2)))
        for c in HW:
            port[f"hw_counters/{c}"] = "0"
        r.rdma(DEV[i], "16.35.4030", None, {1: port})
        r.netdev(ND[i], dev_port=0, mtu=9000, speed=100000, operstate="up")
        if dcb:
            for what, text in dcb[i].items():
                r.command(["dcb", "-j", what, "show", "dev", ND[i]], text.encode())
        else:
            r.command(["mlnx_qos", "-i", ND[i]], (qos[i] if qos else qos_text()).encode())
        for side in ("roce_np", "roce_rp"):
            for p in range(8):
                v = ecn_np[i][p] if (ecn_np and side == "roce_np") else 1
                r.write(f"sys/class/net/{ND[i]}/ecn/{side}/enable/{p}", f"{v}\n")
        r.write(f"sys/class/net/{ND[i]}/ecn/roce_np/params/cnp_dscp", f"{cnp[0]}\n")
        r.write(f"sys/class/net/{ND[i]}/ecn/roce_np/params/cnp_802p_prio", f"{cnp[1]}\n")
        r.write(f"sys/kernel/config/rdma_cm/{DEV[i]}/ports/1/default_roce_tos", f"{tos}\n")
        r.command(["ethtool", "-S", ND[i]], ethtool_stats(storm).encode())
    r.source(f"`hwcheck/commands/mlnx_qos -i mce0/stdout`: verbatim from `{QOS_CAPTURE}` (the "
             "mlnx_qos block: DCBX firmware controlled, trust dscp, PFC on priority 3 with buffer 1, "
             "TC 0 and TC 3 ETS 50 % each, TC 6 vendor holding priority 6).")
    r.source("`sys/class/infiniband/mlx5_0/ports/1/gids/0..3`, `gid_attrs/types/*`, "
             "`gid_attrs/ndevs/*`: the show_gids table of the same capture (show_gids prints these "
             "files: link-local v1/v2 and 192.168.6.132 v1/v2 on mce0); `gids/4` an empty slot.")
    r.source("`mlx5_0` fw 16.35.4030 and the BDF 0001:43:00.0 (HPE CX555A, ConnectX-5 15b3:1017): "
             "`dmesg/mlx5-cx5-hpe-cx555a_fw16.35.4030_limited-by-8GT-x8-of-x16_sufficient-power-27W_blog.txt`, "
             "the same blog.")
    r.source("CNP DSCP 48 and 802.1p priority 6 (`ecn/roce_np/params`): the firmware defaults "
             "`CNP_DSCP_P1 48`, `CNP_802P_PRIO_P1 6` of `mlxconfig/cx4lx-mcx4121a-acu_mlxconfig-q_nextboot_pve_skyao.txt`.")
    r.source("RECONSTRUCTED: the host name (the fixture's name), the second port (mlx5_1/mce1 at 0001:43:00.1, 192.168.7.132, the same "
             "mlnx_qos text), port state/rate, MTU 9000, the `ecn/` enable files (MLNX_OFED's default: "
             "1 on every priority), `default_roce_tos` 106 (DSCP 26, ECT(0)), zero `hw_counters`, and "
             "the `ethtool -S` lines (the counter names are mlx5's, as in "
             "`ethtool/mlx5_ethtool-S_nonzero_xdp-regression_k5.15_bpf-2024.txt`).")
    return r


def set_pfc(text, bits):
    return re.sub(r"(enabled +)([01] +){8}", lambda m: m.group(1) + "   ".join(bits) + "   ", text)


def variants():
    q = qos_text()
    r = base("roce-lossless-ok")
    r.done("a correct lossless RoCE host: two ports, trust DSCP, PFC on 3, ECN on, CNP on 6")

    pfc4 = set_pfc(q, ["0", "0", "0", "0", "1", "0", "0", "0"])
    r = base("roce-pfc-off-roce-prio", qos=[pfc4, pfc4])
    r.source("CHANGED: PFC enabled on priority 4 instead of 3 on both ports (`enabled` row edited).")
    r.done("RoCE traffic (ToS 106, DSCP 26 -> priority 3) on a priority without PFC")

    ecn = [1, 1, 1, 0, 1, 1, 1, 1]
    r = base("roce-ecn-off", ecn_np=[ecn, ecn])
    r.source("CHANGED: `ecn/roce_np/enable/3` is 0 on both ports.")
    r.done("ECN notification point off on the lossless priority")

    r = base("roce-cnp-lossless", cnp=(26, 3))
    r.source("CHANGED: CNP DSCP 26 and 802.1p priority 3 (the lossless class) on both ports.")
    r.done("CNPs sent in the lossless class")

    r = base("roce-no-v2-gid", gid_types=[(V1, V1, V1, V1)] * 2)
    r.source("CHANGED: every GID type is `IB/RoCE v1` on both ports.")
    r.done("no RoCE v2 GID on the port's address")

    r = base("roce-tos-lossy", tos=0)
    r.source("CHANGED: `default_roce_tos` 0 (DSCP 0 -> priority 0, no PFC) on both ports.")
    r.done("RDMA-CM default ToS outside the lossless class")

    r = base("roce-pause-storm", storm=True)
    r.source("CHANGED: `ethtool -S` reports tx_pause_storm_warning_events 3, "
             "tx_pause_storm_error_events 2, rx_prio3_discards 1234 on both ports.")
    r.done("pause storm and drops on the lossless priority")

    pcp = q.replace("Priority trust state: dscp", "Priority trust state: pcp")
    pcp = set_pfc(pcp.split("dscp2prio mapping:")[0] + "Receive buffer" + pcp.split("Receive buffer")[1],
                  ["0"] * 8)
    r = base("roce-ports-differ", qos=[q, pcp])
    r.source("CHANGED: mce1 trusts PCP (no dscp2prio block, as mlnx_qos prints it) and has PFC off "
             "on every priority; mce0 is as captured.")
    r.done("two RoCE ports of the host configured differently")

    dcb = {"app": '{"dscp_prio":[' + ",".join(f'[{d},{d >> 3}," "]' for d in range(64)) + ']}\n',
           "pfc": '{"pfc_cap":8,"macsec_bypass":false,"delay":7,'
                  '"prio_pfc":[false,false,false,true,false,false,false,false]}\n',
           "ets": '{"willing":false,"ets_cap":8,"cbs":false,"tc_bw":[50,0,0,50,0,0,0,0],'
                  '"pg_bw":[0,0,0,0,0,0,0,0],"tc_tsa":["ets","strict","strict","ets","strict",'
                  '"strict","vendor","strict"],"prio_tc":[0,0,0,3,0,0,6,0],'
                  '"reco_tc_bw":[0,0,0,0,0,0,0,0],"reco_tc_tsa":["strict","strict","strict",'
                  '"strict","strict","strict","strict","strict"],"reco_prio_tc":[0,0,0,0,0,0,0,0]}\n',
           "dcbx": '{"ieee":true}\n',
           "buffer": '{"prio_buffer":[0,0,0,1,0,0,0,0],"buffer_size":[130944,130944,0,0,0,0,0,0],'
                     '"total_size":262016}\n'}
    r = base("roce-lossless-dcb", dcb=[dcb, dcb])
    r.source("CHANGED: the DCB view comes from iproute2 `dcb -j {app,pfc,ets,dcbx,buffer} show dev X` "
             "(no mlnx_qos). RECONSTRUCTED: the same settings as the mlnx_qos capture written in the "
             "JSON layout of iproute2's dcb/dcb_{app,pfc,ets,dcbx,buffer}.c (app pairs carry the "
             "trailing \" \" element newer iproute2 prints; DCBX flags: ieee without host = firmware).")
    r.done("the correct host read through upstream dcb instead of mlnx_qos")


def rule_base(hwcheck):
    """tests/rules/scenarios/roce-ports.facts.json, the base of the ROCE_* rule cases: facts.roce of
    roce-lossless-ok alone (the ROCE_* rules read nothing else)."""
    import json
    import subprocess
    out = subprocess.run([hwcheck, "--root", os.path.join(mlxfix.FIX, "roce-lossless-ok", "root"),
                          "facts", "--json"], capture_output=True, text=True, check=True).stdout
    doc = {"schema": "hwcheck.facts", "schema_version": 1,
           "run": {"note": "facts.roce of the roce-lossless-ok fixture (real mlnx_qos/show_gids "
                           "capture); built by tests/roce/mkfixtures.py --hwcheck BUILD/cli/hwcheck"},
           "facts": {"roce": json.loads(out)["facts"]["roce"]}}
    with open(os.path.join(HERE, "..", "rules", "scenarios", "roce-ports.facts.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--corpus", default=os.path.join(HERE, "..", "captures"))
    p.add_argument("--hwcheck", help="also rebuild tests/rules/scenarios/roce-ports.facts.json")
    args = p.parse_args()
    mlxfix.CORPUS = args.corpus
    variants()
    if args.hwcheck:
        rule_base(args.hwcheck)


if __name__ == "__main__":
    main()
