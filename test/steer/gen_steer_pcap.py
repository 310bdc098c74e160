#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026, the mlx5-devx-share authors.
"""Write the traffic of the steering tests and demo as a pcap file (scapy).

The mix, in a random order fixed by --seed:
  - IPv4/UDP to each RSS port (default 5000) from many sources, some of
    them behind an 802.1Q tag;
  - IPv4/UDP and IPv6/UDP to each direct port (default 6000);
  - traffic no rule takes: IPv4/TCP to the first RSS port (5000 if there
    is none), IPv6/UDP to port 7000, ARP.
With several ports of a kind, the n-th gets (4 + n) / 4 times the packets
of the first, so that each rule counts a different number. Payload sizes
vary so that byte counts differ from packet counts times a constant. The
program reading the file computes what each rule must count.
"""
import argparse
import random
import sys

from scapy.all import ARP, Dot1Q, Ether, IP, IPv6, Raw, TCP, UDP, wrpcap


def payload(rng):
    return Raw(bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 1200))))


def ipv4(rng):
    return "10.%d.%d.%d" % (rng.randint(0, 255), rng.randint(0, 255), rng.randint(1, 254))


def ipv6(rng):
    return "2001:db8::%x:%x" % (rng.randint(0, 0xffff), rng.randint(1, 0xffff))


def port_list(text):
    ports = [int(p) for p in text.split(",") if p != ""]
    if any(p < 1 or p > 65535 or p == 7000 for p in ports):
        raise argparse.ArgumentTypeError("ports 1..65535 but 7000, comma-separated")
    return ports


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="pcap file to write")
    ap.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    ap.add_argument("--scale", type=int, default=1,
                    help="multiply every packet count by this (default 1)")
    ap.add_argument("--rss-ports", type=port_list, default=[5000],
                    help="UDP ports of IPv4 traffic only (default 5000)")
    ap.add_argument("--direct-ports", type=port_list, default=[6000],
                    help="UDP ports of IPv4 and IPv6 traffic (default 6000)")
    args = ap.parse_args()
    if set(args.rss_ports) & set(args.direct_ports):
        ap.error("a port is both an RSS and a direct port")
    rng = random.Random(args.seed)
    eth = dict(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
    pkts = []
    n = args.scale
    for k, port in enumerate(args.rss_ports):
        m = n * (4 + k)
        for _ in range(400 * m // 4):
            pkts.append(Ether(**eth) / IP(src=ipv4(rng), dst=ipv4(rng)) /
                        UDP(sport=rng.randint(1024, 65535), dport=port) / payload(rng))
        for _ in range(60 * m // 4):
            pkts.append(Ether(**eth) / Dot1Q(vlan=rng.randint(1, 4094)) /
                        IP(src=ipv4(rng), dst=ipv4(rng)) /
                        UDP(sport=rng.randint(1024, 65535), dport=port) / payload(rng))
    for k, port in enumerate(args.direct_ports):
        m = n * (4 + k)
        for _ in range(150 * m // 4):
            pkts.append(Ether(**eth) / IP(src=ipv4(rng), dst=ipv4(rng)) /
                        UDP(sport=rng.randint(1024, 65535), dport=port) / payload(rng))
        for _ in range(90 * m // 4):
            pkts.append(Ether(**eth) / IPv6(src=ipv6(rng), dst=ipv6(rng)) /
                        UDP(sport=rng.randint(1024, 65535), dport=port) / payload(rng))
    tcp_port = args.rss_ports[0] if args.rss_ports else 5000
    for _ in range(80 * n):
        pkts.append(Ether(**eth) / IP(src=ipv4(rng), dst=ipv4(rng)) /
                    TCP(sport=rng.randint(1024, 65535), dport=tcp_port) / payload(rng))
    for _ in range(70 * n):
        pkts.append(Ether(**eth) / IPv6(src=ipv6(rng), dst=ipv6(rng)) /
                    UDP(sport=rng.randint(1024, 65535), dport=7000) / payload(rng))
    for _ in range(20 * n):
        pkts.append(Ether(src=eth["src"], dst="ff:ff:ff:ff:ff:ff") /
                    ARP(psrc=ipv4(rng), pdst=ipv4(rng)))
    rng.shuffle(pkts)
    wrpcap(args.out, pkts)
    print("%s: %d packets" % (args.out, len(pkts)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
