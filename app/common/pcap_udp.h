/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026, the mlx5-devx-share authors.
 */
/*
 * The fields of a captured UDP datagram that the steering rules of the
 * demo and of the steering autotest look at, decoded with DPDK's header
 * structures: independently of the software device's parser, so that the
 * counts expected from a pcap file are not the device's own opinion.
 */
#ifndef MDEVX_APP_PCAP_UDP_H
#define MDEVX_APP_PCAP_UDP_H

#include <netinet/in.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_udp.h>

struct pcap_udp {
	int ipv4;		/**< 1: IPv4, 0: IPv6 */
	uint16_t dport;		/**< UDP destination port */
	/** IPv4 only: source, destination, sport << 16 | dport, for rte_softrss() */
	uint32_t tuple[3];
};

/*
 * Decode Ethernet frame @p p of @p len bytes, behind at most one 802.1Q
 * tag, carrying IPv4 (with options) or IPv6 (no extension header) and UDP:
 * 0 with @p u filled, or -1 for any other frame.
 */
static inline int
pcap_udp_decode(const uint8_t *p, uint32_t len, struct pcap_udp *u)
{
	uint32_t off = sizeof(struct rte_ether_hdr), l4;
	struct rte_ether_hdr eth;
	struct rte_udp_hdr udp;
	uint16_t type;

	memset(u, 0, sizeof(*u));
	if (len < off)
		return -1;
	memcpy(&eth, p, sizeof(eth));
	type = rte_be_to_cpu_16(eth.ether_type);
	if (type == RTE_ETHER_TYPE_VLAN) {
		struct rte_vlan_hdr vh;

		if (len < off + sizeof(vh))
			return -1;
		memcpy(&vh, p + off, sizeof(vh));
		type = rte_be_to_cpu_16(vh.eth_proto);
		off += sizeof(vh);
	}
	if (type == RTE_ETHER_TYPE_IPV4) {
		struct rte_ipv4_hdr ip;

		if (len < off + sizeof(ip))
			return -1;
		memcpy(&ip, p + off, sizeof(ip));
		l4 = off + (uint32_t)(ip.version_ihl & 0xf) * 4;
		if (ip.next_proto_id != IPPROTO_UDP || len < l4 + sizeof(udp))
			return -1;
		memcpy(&udp, p + l4, sizeof(udp));
		u->ipv4 = 1;
		u->tuple[0] = rte_be_to_cpu_32(ip.src_addr);
		u->tuple[1] = rte_be_to_cpu_32(ip.dst_addr);
		u->tuple[2] = (uint32_t)rte_be_to_cpu_16(udp.src_port) << 16 |
			      rte_be_to_cpu_16(udp.dst_port);
	} else if (type == RTE_ETHER_TYPE_IPV6) {
		struct rte_ipv6_hdr ip;

		if (len < off + sizeof(ip))
			return -1;
		memcpy(&ip, p + off, sizeof(ip));
		l4 = off + sizeof(ip);
		if (ip.proto != IPPROTO_UDP || len < l4 + sizeof(udp))
			return -1;
		memcpy(&udp, p + l4, sizeof(udp));
	} else {
		return -1;
	}
	u->dport = rte_be_to_cpu_16(udp.dst_port);
	return 0;
}

#endif /* MDEVX_APP_PCAP_UDP_H */
