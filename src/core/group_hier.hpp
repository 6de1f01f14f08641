// Collectives over a group whose members run on several hosts: the members of each host combine through
// shared memory, one member per host (its leader) talks to the other hosts, by algorithms whose cost grows
// with the logarithm of the hosts or with the data, never with members × data.
#pragma once

#include <cstddef>
#include <vector>

#include "core/group.hpp"

namespace rdsm::detail {

/// A group's members by host. Hosts are numbered in the order of their lowest member; a host's members are
/// listed in ascending index, its leader first.
struct group_layout {
  int hosts = 1;
  int my_host = 0;
  std::vector<int> host_of;  // member index -> host
  std::vector<int> first;    // host -> position of its first member in `order` (hosts + 1 entries)
  std::vector<int> order;    // member indices grouped by host

  int count(int h) const { return first[h + 1] - first[h]; }
  int member(int h, int k) const { return order[first[h] + k]; }
  int leader(int h) const { return order[first[h]]; }
};

/// The layout of `g` when its members span two or more hosts and the hierarchical algorithms are on
/// (RDSM_COLL_HIERARCHY), else nullptr: the flat algorithms serve groups within one host.
const group_layout* spread_layout(const group& g);

void hier_sync(const char* fn, group& g, const group_layout& l);
void hier_broadcast(const char* fn, group& g, const group_layout& l, void* dest, const void* source, size_t bytes,
                    int root, bool root_receives);
/// fcollect and collect: member i's block is `bytes[i]` bytes at `offset[i]` of dest.
void hier_gather_all(const char* fn, group& g, const group_layout& l, void* dest, const void* source,
                     const std::vector<size_t>& offset, const std::vector<size_t>& bytes);
/// Whether `g` has the scratch hier_collect needs for its table of sizes (teams of up to 1024 members).
bool hier_collect_fits(const group& g);
void hier_collect(const char* fn, group& g, const group_layout& l, void* dest, const void* source, size_t bytes,
                  size_t dest_bytes);
void hier_alltoall(const char* fn, group& g, const group_layout& l, void* dest, const void* source,
                   size_t block_bytes);
void hier_reduce(const char* fn, group& g, const group_layout& l, void* dest, const void* source, size_t nelems,
                 size_t elem_bytes, combine_fn combine);

}  // namespace rdsm::detail
