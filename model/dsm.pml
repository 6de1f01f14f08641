/*
 * dsm.pml -- Promela model of rdsm's sequential-consistency protocol (src/dsm/sequential.cpp): a home-based
 * single-writer / multiple-reader directory protocol with messages (release consistency, which uses no
 * messages, is modelled in release.pml).
 *
 * 3 PEs, 2 pages: page 0 has home PE 0, page 1 home PE 1 (PE 2 is the home of nothing). A write_req
 * invalidates every sharer: SWMR at every instant.
 * Deliberately broken variants (pan must report an error; see model/check.sh --expect-violation):
 *     -DBUG_SKIP_INV      the home sends no inv(page)                             -> swmr_ok fails
 *     -DBUG_NO_WRITEBACK  a recalled modified owner does not write its frame back -> read_ok/final_ok
 *     -DRACY_GRANT        the grant is applied by the application after it wakes up instead of by
 *                         the handler in message order (see README.md: a recall overtakes it)
 *     -DBUG_EXCL_KEPT     a recalled exclusive owner keeps its right to upgrade     -> swmr_ok fails
 * -DLINKED models every copy as its home's frame itself (sequential mode with the homes on the copier's
 * host: src/dsm/protocol.cpp, space::fetch): a fetch and a write-back then move nothing, and read_ok holds
 * only if the protections keep a single writer at every instant (BUG_SKIP_INV still fails).
 *
 * Read-modify-write: a read miss may ask for ownership instead (write_req; the implementation does when
 * this PE's last write upgraded a copy it had read), and its grant leaves the page shared but exclusive:
 * the write that follows upgrades it to modified locally, with no message. A recall clears exclusive.
 * Or the grant opens the page modified at once (the implementation does with the home on the same host,
 * and skips the write-back of a page equal to the home's copy, which writing it back would not change).
 *
 * -DHANDOVER: a lock's page goes on with the lock (sequential_protocol::hand_over). An application that
 * holds a page modified and has no request of its own out may give it up (no access left, written back)
 * and send hand_over(page, to, version) to the home, at most HANDOVERS times; the home makes `to` the owner
 * as if it had asked, unless the page was taken from the sender since (then it drops the hand-over): the
 * sender is not the owner, or owns it by a later grant (the version its ownership began with differs). The grant
 * wakes `to`'s application but answers none of its requests: a request of its own still out is answered
 * later as a request of the owner (write_grant, current: the owner's copy is the newest). Broken variants:
 *     -DBUG_HANDOVER_PENDING  a PE hands a page over while a request of its own is out  -> swmr_ok fails
 *     -DBUG_STALE_HANDOVER    the home ignores the hand-over's version                  -> swmr_ok fails
 *
 * Local states, messages and directory fields have the names the implementation uses.
 * Properties (assertions; the name is what pan prints after "assertion violated"):
 *     swmr_ok           per page, a modified PE excludes every other shared/modified PE
 *     read_ok           every access sees latest[page]: a read returns it, and a write finds it in its
 *                       frame before storing ++latest[page] (a page has more than one word: a write
 *                       on a stale frame loses the other words of the last write)
 *     final_ok          at the end, the authoritative copy (owner's frame, else home's) == latest
 *     no deadlock       pan's invalid-end-state check; run with -q, so all channels must be empty too
 */

#define NPE   3                 /* PEs (set_st's invariant is written out for 3) */
#define NPG   2                 /* pages */
#define NOPE  255               /* "none" for a PE field (owner) */
#define NOVER 255               /* "none" for a have_version */
#ifndef OPS0
#define OPS0  2                 /* accesses of PE 0, PE 1, PE 2 */
#endif
#ifndef OPS1
#define OPS1  2
#endif
#ifndef OPS2
#define OPS2  2
#endif
#ifndef HANDOVERS
#define HANDOVERS 1             /* hand-overs per application (-DHANDOVER) */
#endif
#ifndef MAXTRY
#define MAXTRY 1                /* requests per access; if the page is taken away again between the
                                   grant and the retried access, the access is abandoned. 1 is
                                   enough: the next access can be the same one again, a retry */
#endif

#define HOME(p)  (p)            /* home PE of page p */
#define IX(i,p)  ((i)*NPG + (p))/* (PE i, page p) in the per-PE, per-page arrays and channels */
#define BIT(i)   (1 << (i))
#ifdef HANDOVER
#define DOWN 3                  /* a handed grant, the grant of the PE's own request, a recall */
#else
#define DOWN 2
#endif
#ifdef LINKED                   /* every PE's copy is its home's frame (one host, RDSM_DSM_SAME_HOST=map): */
#define FX(i,p)  IX(HOME(p),p)  /* fetches and write-backs change nothing, protections alone keep SWMR */
#else
#define FX(i,p)  IX(i,p)        /* PE i's own frame of page p */
#endif

mtype = {
  invalid, shared, modified,                    /* local page states */
  read_req, write_req, read_grant, write_grant, /* requester <-> home */
  recall, recall_ack, inv, inv_ack,             /* home <-> owner / sharers */
  hand_over                                     /* owner -> home: give the page to PE a */
};

/* ---- PE side ------------------------------------------------------------------------------- */
mtype st[NPE*NPG];      /* st[IX(i,p)]: PE i's local state of page p */
byte  frame[NPE*NPG];   /* PE i's frame of page p; the home's frame is the authoritative copy */
byte  hver[NPE*NPG];    /* have_version: version of PE i's shared copy of page p, NOVER if unknown */
bit   waiting[NPE];     /* PE i's application is blocked on a grant (one outstanding request) */
bit   excl[NPE*NPG];    /* exclusive: PE i owns page p (the directory says so) but holds it shared */
bit   asked_read[NPE];  /* PE i's outstanding write_req was asked for by a read */
bit   pend[NPE];        /* PE i has a request of its own out (its grant not applied yet) */
byte  over[NPE*NPG];    /* the version PE i's ownership of page p began with (its write_grant's) */
#ifdef RACY_GRANT
mtype gm[NPE]; byte gp[NPE], ga[NPE], gb[NPE];  /* the grant, handed by the handler to the app */
#endif

/* ---- ghost state, for the properties only ------------------------------------------------- */
byte latest[NPG];       /* value of the last write of page p: each write stores ++latest[p] */
byte finished;          /* applications that are done */
hidden byte nmod, nsh, swmr_ok, read_ok, final_ok;

/* ---- directory, at the home of each page ------------------------------------------------- */
typedef dir_t {
  byte  owner;          /* the PE holding the page modified, NOPE if none */
  byte  sharers;        /* bitmask of PEs with a shared copy */
  byte  version;        /* +1 whenever the home copy changes by a recall of a modified owner */
  bit   busy;           /* a transaction is in progress */
  mtype kind;           /* the transaction: read_req or write_req (all zero when not busy) */
  byte  req;            /*   requester */
  byte  hv;             /*   requester's have_version */
  byte  pend;           /*   acks still awaited (recall_ack and inv_acks) */
  byte  rfrom;          /*   owner recalled in this transaction, NOPE if none */
  bit   handed;         /*   a hand-over made it (the grant answers no request) */
}                       /* queue: the waiting requests, see req[] below */
dir_t dir[NPG];

/* ---- messages ----------------------------------------------------------------------------
 * req[r]: the single outstanding request of PE r, read_req(page) or write_req(page, have_version).
 *   The directory's FIFO queue of waiting requests is modelled by these slots: the home takes a
 *   waiting request for its page whenever it is not busy, in any order. Requests come from
 *   different PEs (one outstanding each), whose arrival order is arbitrary anyway, so this allows
 *   every FIFO order (and more).
 * down[IX(i,p)]: FIFO from page p's home to PE i (the home's local queue when i is the home):
 *   read_grant(a=version), write_grant(b=current; -DHANDOVER: a=2*version+handed), recall(a=keep), inv.
 *   At most 2 in flight: a grant, then the recall or inv of the next transaction.
 * recall_ack, inv_ack: delivered to the home in the same step as they are sent (deliver_ack). While
 *   an ack is in flight the home's page is busy, so its delivery commutes with every other step:
 *   delivering it at once loses no behaviour, and saves the states with acks in flight. */
chan req[NPE]      = [1] of { mtype, byte, byte, byte };    /* kind, page, have_version or version, to */
chan down[NPE*NPG] = [DOWN] of { mtype, byte, byte };       /* type, a, b */

/* Every change of a local state goes through set_st, which checks the invariant on the spot; the
 * invariants depend on st[] only, so this checks them in every reachable state. */
inline set_st(i, p, s) {
  st[IX(i,p)] = s;
  if :: s == invalid -> hver[IX(i,p)] = NOVER :: else fi;  /* (dead once invalid: one state, not many) */
  nmod = (st[IX(0,p)] == modified) + (st[IX(1,p)] == modified) + (st[IX(2,p)] == modified);
  nsh  = (st[IX(0,p)] == shared)   + (st[IX(1,p)] == shared)   + (st[IX(2,p)] == shared);
  swmr_ok = (nmod == 0 || (nmod == 1 && nsh == 0));
  assert(swmr_ok);
  nmod = 0; nsh = 0
}

/* ---- requester: apply a grant -------------------------------------------------------------
 * read_grant(version): fetch the page from the home's frame (RDMA get; nothing to copy when we are
 *   the home), remember the version, become shared.
 * write_grant(current): fetch the page unless current, become modified. */
inline apply_grant(i, m, p, a, b) {
  if
  :: m == read_grant ->
       excl[IX(i,p)] = 0;
       if
       :: i != HOME(p) -> frame[FX(i,p)] = frame[FX(HOME(p),p)]
       :: else
       fi;
       hver[IX(i,p)] = a;
       set_st(i, p, shared)
  /* the grant of the owner's own request, answered after a hand-over made it the owner: it may have
   * written since, so it stays modified (held exclusive, a recall would take it without its writes) */
  :: m == write_grant && st[IX(i,p)] == modified ->
       if :: a % 2 == 0 -> asked_read[i] = 0 :: else fi
  :: m == write_grant && st[IX(i,p)] != modified ->
       if
       :: i != HOME(p) && !b -> frame[FX(i,p)] = frame[FX(HOME(p),p)]
       :: else
       fi;
       hver[IX(i,p)] = NOVER;
#ifdef HANDOVER
       over[IX(i,p)] = a / 2;
#endif
       if
       :: asked_read[i] || a % 2 -> excl[IX(i,p)] = 1; set_st(i, p, shared)
       :: asked_read[i] || a % 2 -> excl[IX(i,p)] = 0; set_st(i, p, modified)   /* opened (a home on this host) */
       :: else -> excl[IX(i,p)] = 0; set_st(i, p, modified)
       fi;
       if :: a % 2 == 0 -> asked_read[i] = 0 :: else fi
  fi;
  if :: !(m == write_grant && a % 2) -> pend[i] = 0 :: else fi   /* a handed grant answers no request */
}

/* ---- home: one transaction per page -------------------------------------------------------
 * Start the transaction of request (m, have_version rhv) from PE r: recall a modified owner other
 * than r (keep = shared for a read, invalid for a write); in sequential mode a write also sends
 * inv to every sharer other than r. The recall and the invs go out together. */
inline start_txn(p, m, r, rhv) {
  dir[p].busy = 1; dir[p].kind = m; dir[p].req = r; dir[p].hv = rhv;
  dir[p].rfrom = NOPE; dir[p].handed = 0;
  /* The home's copy is its frame, which a remote owner's writes bypass until a recall: on a remote
   * write request the home drops its own shared access at once (space::home_begin), unless a request of
   * its own is out (-DHANDOVER: a handed grant came first): its grant, on its way, would open the page
   * again, so the home is then invalidated as a sharer, by a message after that grant. */
  if
  :: m == write_req && r != HOME(p) && st[IX(HOME(p), p)] == shared && !pend[HOME(p)] ->
       set_st(HOME(p), p, invalid);
       dir[p].sharers = dir[p].sharers & ~BIT(HOME(p))
  :: else
  fi;
  if
  :: dir[p].owner != NOPE && dir[p].owner != r ->
       if
       :: m == read_req  -> down[IX(dir[p].owner, p)]!recall, shared, 0
       :: m == write_req -> down[IX(dir[p].owner, p)]!recall, invalid, 0
       fi;
       dir[p].rfrom = dir[p].owner;
       dir[p].pend++
  :: else
  fi;
#ifndef BUG_SKIP_INV
  if
  :: m == write_req ->
       for (s : 0 .. NPE-1) {
         if
         :: s != r && (dir[p].sharers & BIT(s)) -> down[IX(s, p)]!inv, 0, 0; dir[p].pend++
         :: else
         fi
       }
       s = 0
  :: else
  fi
#endif
}

/* All acks are in: update the directory and reply. read: owner = none, sharers += {recalled
 * owner, r}. write: owner = r, sharers = {}. current = r's shared copy has the present version and
 * nothing was recalled. */
inline finish_txn(p) {
  if
  :: dir[p].kind == read_req && dir[p].owner != dir[p].req ->
       if
       :: dir[p].rfrom != NOPE -> dir[p].sharers = dir[p].sharers | BIT(dir[p].rfrom)
       :: else
       fi;
       dir[p].owner = NOPE;
       dir[p].sharers = dir[p].sharers | BIT(dir[p].req);
       down[IX(dir[p].req, p)]!read_grant, dir[p].version, 0
  :: else ->  /* a write, or a read by the owner (which stays the owner) */
#ifdef HANDOVER
       a = dir[p].version * 2 + dir[p].handed;
#else
       a = 0;
#endif
       b = (dir[p].hv != NOVER && dir[p].hv == dir[p].version && dir[p].rfrom == NOPE);
       if :: dir[p].owner == dir[p].req -> b = 1 :: else fi;
       dir[p].owner = dir[p].req;
       dir[p].sharers = 0;
       down[IX(dir[p].req, p)]!write_grant, a, b
  fi;
  dir[p].busy = 0; dir[p].kind = 0; dir[p].req = 0; dir[p].hv = 0; dir[p].rfrom = 0; dir[p].handed = 0
}

/* The home receives recall_ack or inv_ack for page p: a recall_ack means the recalled owner has
 * dropped its access and its write-back (if any) is complete: version + 1. When no ack is awaited
 * any more, the transaction finishes. */
inline deliver_ack(p, m) {
  if :: m == recall_ack -> dir[p].version++ :: else fi;
  dir[p].pend--;
  if :: dir[p].pend == 0 -> finish_txn(p) :: else fi
}

/* ---- the progress handler of PE me: one message at a time ---------------------------------- */
proctype handler(byte me) {
  mtype m; byte p, a, b, src, s;
end_idle:
  atomic {
    if
    /* owner / sharer / requester side: a message from the home of page 0 or 1, in FIFO order */
    :: down[IX(me, 0)]?m, a, b -> p = 0
    :: down[IX(me, 1)]?m, a, b -> p = 1
    /* home side: a waiting request for my page, taken when no transaction is in progress */
    :: me < NPG && !dir[me].busy && req[0]?[m, eval(me), a, b] -> req[0]?m, p, a, b; src = 0
    :: me < NPG && !dir[me].busy && req[1]?[m, eval(me), a, b] -> req[1]?m, p, a, b; src = 1
    :: me < NPG && !dir[me].busy && req[2]?[m, eval(me), a, b] -> req[2]?m, p, a, b; src = 2
    fi;
    if
    /* home: start the request's transaction; finish it at once if there is nobody to wait for */
    :: m == read_req || m == write_req ->
         start_txn(p, m, src, a);
         if :: dir[p].pend == 0 -> finish_txn(p) :: else fi
    /* home: a hand-over from the owner makes PE a the owner, as a write request of a would; from a PE
     * the page was taken from since, it is dropped */
#ifdef BUG_STALE_HANDOVER
    :: m == hand_over && dir[p].owner == src ->
#else
    :: m == hand_over && dir[p].owner == src && dir[p].version == a ->
#endif
         dir[p].owner = NOPE;
         dir[p].version++;                /* the giver wrote the page back */
         start_txn(p, write_req, b, NOVER);
         dir[p].handed = 1;
         if :: dir[p].pend == 0 -> finish_txn(p) :: else fi
#ifdef BUG_STALE_HANDOVER
    :: m == hand_over && dir[p].owner != src -> skip
#else
    :: m == hand_over && (dir[p].owner != src || dir[p].version != a) -> skip
#endif
    /* requester: apply the grant here, in message order, then wake the application */
    :: m == read_grant || m == write_grant ->
#ifdef RACY_GRANT
         gm[me] = m; gp[me] = p; ga[me] = a; gb[me] = b;
#else
         apply_grant(me, m, p, a, b);
#endif
         waiting[me] = 0
    /* sharer: drop the copy, acknowledge */
    :: m == inv ->
         excl[IX(me,p)] = 0;
         set_st(me, p, invalid);
         deliver_ack(p, inv_ack)
    /* owner, modified: first drop own access (state := keep) ... */
    :: m == recall && st[IX(me,p)] == modified ->
         set_st(me, p, a);
         goto writeback
    /* owner, exclusive (shared, never written since the grant): drop to keep, nothing to write back.
     * Otherwise never reached: a recall finds the owner modified, since its grant was applied before
     * (with -DRACY_GRANT it is reached, and then this reply is wrong, see README.md). */
    :: m == recall && st[IX(me,p)] != modified ->
         if
         :: excl[IX(me,p)] ->
#ifndef BUG_EXCL_KEPT
              excl[IX(me,p)] = 0;
#endif
              set_st(me, p, a)
         :: else
         fi;
         deliver_ack(p, recall_ack)
    fi;
    m = 0; p = 0; a = 0; b = 0; src = 0;
    goto end_idle
  };
writeback:
  /* ... then write the frame back into the home's frame (RDMA put; nothing when we are the home)
   * and acknowledge once the put is complete. The application runs between the two steps. */
  atomic {
#ifndef BUG_NO_WRITEBACK
    if
    :: me != HOME(p) -> frame[FX(HOME(p),p)] = frame[FX(me,p)]
    :: else
    fi;
#endif
    deliver_ack(p, recall_ack);
    m = 0; p = 0; a = 0; b = 0; src = 0;
    goto end_idle
  }
}

/* ---- the application of PE me -------------------------------------------------------------
 * A load (w = 0) or store (w = 1) of page p. Each attempt is one atomic step: a load or store either
 * faults or completes under the current protection. A miss sends read_req, or write_req with the
 * have_version of a shared copy, and the application sleeps until the grant is applied; then it
 * attempts again, as a faulting instruction is retried: the page may have been recalled again in
 * between. After MAXTRY requests the access is abandoned (a bound on the model, not the protocol).
 * Callers put access() in an atomic block right after choosing p and w: the first attempt is one
 * step with the choice; atomicity ends whenever the application sleeps. */
#define MISS(me,p,w) ((w && st[IX(me,p)] != modified && !(st[IX(me,p)] == shared && excl[IX(me,p)])) || (!w && st[IX(me,p)] == invalid))
#ifdef RACY_GRANT
#define READY(me) (!waiting[me] && gm[me] == 0)
#else
#define READY(me) (!waiting[me])
#endif
inline access(me, p, w) {
  do
  /* a write to an exclusive page: the fault upgrades it here (the access then runs again) */
  :: READY(me) && w && st[IX(me,p)] == shared && excl[IX(me,p)] ->
       excl[IX(me,p)] = 0;
       set_st(me, p, modified)
  :: READY(me) && w && st[IX(me,p)] == modified ->
       read_ok = (frame[FX(me,p)] == latest[p]); assert(read_ok);
       latest[p]++; frame[FX(me,p)] = latest[p];
       break
  :: READY(me) && !w && st[IX(me,p)] != invalid ->
       read_ok = (frame[FX(me,p)] == latest[p]); assert(read_ok);
       break
  :: READY(me) && MISS(me,p,w) && tries == MAXTRY ->
       break
  /* woken by a handed grant of another page, its own request still out: sleeps until a grant again */
  :: READY(me) && MISS(me,p,w) && tries < MAXTRY && pend[me] ->
       waiting[me] = 1
  :: READY(me) && MISS(me,p,w) && tries < MAXTRY && !pend[me] ->
       tries++;
       waiting[me] = 1;
       pend[me] = 1;
       if
       :: !w -> req[me]!read_req, p, 0, 0
       :: !w -> asked_read[me] = 1; req[me]!write_req, p, NOVER, 0    /* read-modify-write guessed */
       :: w && st[IX(me,p)] == shared && !excl[IX(me,p)] -> req[me]!write_req, p, hver[IX(me,p)], 0
       :: w && st[IX(me,p)] != shared -> req[me]!write_req, p, NOVER, 0
       fi
#ifdef RACY_GRANT
  /* the variant: the woken application applies the grant itself, after the handler moved on */
  :: !waiting[me] && gm[me] != 0 ->
       apply_grant(me, gm[me], gp[me], ga[me], gb[me]); gm[me] = 0; gp[me] = 0; ga[me] = 0; gb[me] = 0
#endif
  od;
  tries = 0; p = 0; w = 0         /* dead from here on: one state, not many */
}

/* Sequential mode: nops accesses, each a load or a store of either page. */
#ifdef HANDOVER
/* The unlock of a lock whose next holder is PE t: a page this PE holds modified, with no request of its
 * own out, is given up (written back, no access left) and handed to t through the home. */
inline hand_over_page(me, p, t) {
  excl[IX(me,p)] = 0;
  set_st(me, p, invalid);
  if
  :: me != HOME(p) -> frame[FX(HOME(p),p)] = frame[FX(me,p)]
  :: else
  fi;
  req[me]!hand_over, p, over[IX(me,p)], t
}
#ifdef BUG_HANDOVER_PENDING
#define MAY_HAND(me,p) (!waiting[me] && st[IX(me,p)] == modified && nfull(req[me]))
#else
#define MAY_HAND(me,p) (!waiting[me] && !pend[me] && st[IX(me,p)] == modified && nfull(req[me]))
#endif
#endif

proctype app(byte me; byte nops) {
  byte n, p, q, tries, h; bit w;
  for (n : 1 .. nops) {
#ifdef HANDOVER
    /* (q: the page accessed, which the unlock below may hand over) */
    atomic { if :: p = 0 :: p = 1 fi; q = p; if :: w = 0 :: w = 1 fi; access(me, p, w) }
#else
    atomic { if :: p = 0 :: p = 1 fi; if :: w = 0 :: w = 1 fi; access(me, p, w) }
#endif
#ifdef HANDOVER
    /* the unlock after the access: its page may go on, to the next PE (the lock's queue) */
    atomic {
      if
      :: h < HANDOVERS && MAY_HAND(me, q) -> hand_over_page(me, q, (me + 1) % NPE); h++
      :: true
      fi;
      q = 0
    }
#endif
  }
  /* done once the grant of a request of its own still out (a handed grant woke it) is in */
  atomic { !pend[me]; finished++ }
}

init {
  byte i, p;
  atomic {
    for (i : 0 .. NPE-1) {
      for (p : 0 .. NPG-1) {
        st[IX(i,p)] = invalid;
        hver[IX(i,p)] = NOVER
      }
    }
    for (p : 0 .. NPG-1) {
      dir[p].owner = HOME(p);            /* the home owns its pages, sharers = {} ... */
      st[IX(HOME(p),p)] = modified       /* ... and holds them modified; all frames 0 */
    }
    i = 0; p = 0;
    run handler(0); run handler(1); run handler(2);
    run app(0, OPS0); run app(1, OPS1); run app(2, OPS2)
  }
  /* Each transaction ends with a grant its requester waits for, so once every application is done
   * the protocol is quiescent, and the authoritative copy must hold the last value written. */
  /* (-DHANDOVER: a handed grant wakes no one who waits for it, so it may still be on its way when every
   * application is done: the check also waits until nothing is in flight) */
  (finished == NPE && len(down[0]) + len(down[1]) + len(down[2]) + len(down[3]) + len(down[4]) + len(down[5]) +
   len(req[0]) + len(req[1]) + len(req[2]) == 0);
  atomic {
    for (p : 0 .. NPG-1) {
      assert(!dir[p].busy);
      if
      :: dir[p].owner != NOPE -> final_ok = (frame[FX(dir[p].owner,p)] == latest[p])
      :: else                 -> final_ok = (frame[FX(HOME(p),p)] == latest[p])
      fi;
      assert(final_ok)
    }
  }
}
