// Messages of the sequential protocol (sequential.cpp): fixed 16-byte records, carried by UCX active messages
// between hosts and by the same-host channel (channel.hpp) between PEs of one host.
#pragma once

#include <cstdint>

namespace rdsm::detail::dsm {

/// Messages of the sequential protocol; the names are the model's (model/dsm.pml).
enum class msg_kind : uint8_t {
  read_req,     // requester -> home: wants a readable copy
  write_req,    // requester -> home: wants to be the single writer
  recall,       // home -> owner: give up write access (keep a shared copy or none), write back
  recall_ack,   // owner -> home
  inv,          // home -> sharer: drop the copy
  inv_ack,      // sharer -> home
  read_grant,   // home -> requester: fetch the page from the home's frame
  write_grant,  // home -> requester: you are the owner (fetch first unless your copy is current)
  hand_over,    // owner -> home: I gave the page up (written back, no access left) for PE `to`, who takes
                // the lock I released next: make it the owner
};
const char* msg_name(msg_kind k);

struct message {
  msg_kind kind;
  uint8_t keep_shared = 0;  // recall
  uint8_t current = 0;      // write_grant: the requester's copy is up to date; write_req: it has a copy
  uint8_t handed = 0;       // write_grant: not asked for; the page came with a lock (hand_over)
  uint32_t page = 0;
  uint32_t version = 0;     // read_grant/write_grant: the home copy's version; write_req: the copy's;
                            // hand_over: the version the sender's ownership began with (its grant's)
  uint32_t to = 0;          // hand_over: the PE the page goes to
};

// Crosses PEs, also of different architectures (core/job_record.hpp's wire_layout_version covers it).
static_assert(sizeof(message) == 16 && alignof(message) == 4, "message must have one layout on every architecture");

struct incoming {
  int from;
  message m;
};

}  // namespace rdsm::detail::dsm
