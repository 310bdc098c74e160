#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write the traffic of the steering tests and demo as a pcap file (scapy).

The mix, in a random order fixed by --seed:
  - IPv4/UDP to port 5000 from many sources (the RSS rule), some of them
    behind an 802.1Q tag;
  - IPv4/UDP and IPv6/UDP to port 6000 (the direct rule);
  - traffic no rule takes: IPv4/TCP to port 5000, IPv6/UDP to port 7000,
    ARP.
Payload sizes vary so that byte counts differ from packet counts times a
constant. The test reading the file computes what each rule must count.
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="pcap file to write")
    ap.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    ap.add_argument("--scale", type=int, default=1,
                    help="multiply every packet count by this (default 1)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    eth = dict(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
    pkts = []
    n = args.scale
    for _ in range(400 * n):
        pkts.append(Ether(**eth) / IP(src=ipv4(rng), dst=ipv4(rng)) /
                    UDP(sport=rng.randint(1024, 65535), dport=5000) / payload(rng))
    for _ in range(60 * n):
        pkts.append(Ether(**eth) / Dot1Q(vlan=rng.randint(1, 4094)) /
                    IP(src=ipv4(rng), dst=ipv4(rng)) /
                    UDP(sport=rng.randint(1024, 65535), dport=5000) / payload(rng))
    for _ in range(150 * n):
        pkts.append(Ether(**eth) / IP(src=ipv4(rng), dst=ipv4(rng)) /
                    UDP(sport=rng.randint(1024, 65535), dport=6000) / payload(rng))
    for _ in range(90 * n):
        pkts.append(Ether(**eth) / IPv6(src=ipv6(rng), dst=ipv6(rng)) /
                    UDP(sport=rng.randint(1024, 65535), dport=6000) / payload(rng))
    for _ in range(80 * n):
        pkts.append(Ether(**eth) / IP(src=ipv4(rng), dst=ipv4(rng)) /
                    TCP(sport=rng.randint(1024, 65535), dport=5000) / payload(rng))
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
