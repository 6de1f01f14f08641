/*
 * release.pml -- Promela model of rdsm's release-consistency protocol (src/dsm/release.cpp, notices.cpp),
 * which uses no messages: a faulting PE copies the page from its home's frame itself, writers send
 * byte-exact diffs to the homes at release, and an acquire refreshes or drops the copies that other PEs'
 * write notices name. A home never loses access to its own pages.
 *
 * NPG pages of W words, page p homed at PE p (so PE 1 is the home of page 1 and holds copies of page 0);
 * NPE PEs each run NPH phases of OPS data-race-free accesses, each access maybe followed by an acquire
 * (rdsm_dsm_acquire, or a lock), each phase ended by release, barrier, acquire. An access reads or writes
 * a word the phase's other accesses allow, or is skipped. With THREADS, PE 1 runs a second program thread
 * that makes accesses of its own in every phase (see below). Names are the implementation's
 * (release_protocol, copy_tracker, notice_rings):
 *   st, frame, twin     a PE's state of a page, its frame (the home's frame is the page), its twin. A copy
 *                       is open for writing (in dirty_) exactly when it is modified
 *   copied              the PE told the page's home of its copy (copy_tracker::add_copy; reset only by
 *                       free/advice, which the model does not do)
 *   bits, counted       the home's copy tracker: a bit per page (fetch_or) and, from copies on the home's
 *                       host, a counter (fetch_add), each one step. The home only asks whether the count
 *                       moved since its last look (count != count_seen_), so the model keeps that: counted.
 *                       The pages a look finds are the release's `fresh` pages
 *   tracked             the home knows that copies exist: its writes to the page are noticed
 *   home_dirty          a tracked home page written since a release closed it, or found copied while the
 *                       home held it writable (maybe written since the copy was taken)
 *   home_hot            a tracked home page open with a twin (home_hot_), compared at each release
 *   flushed             a copy written back early, at an acquire: its notice goes with the next release
 *   notices             the notices a release publishes
 *   ring[(q*NPE+i)*NPG+p]  page p is in PE q's ring and PE i has not collected it yet (a ring is
 *                       appended entries first, tail last, and read tail first: publishing is one step)
 * Choices the implementation makes by heuristics or by where PEs run are left free, so the model covers
 * every one: whether an unchanged open page stays open (stays_open), whether a stale copy is refreshed
 * (home on this host, or a far copy that earned refreshes) or dropped, whether an acquire found a ring
 * overrun (then every copy is stale; -DNO_OVERRUN leaves this out). With FAR_PEERS, PEs are on several
 * hosts: copies set bits but do not count, and homes look at their bits at every release.
 *
 * THREADS: PE 1's second thread accesses pages the page table lets it access without the PE's lock
 * (a store to a page mapped read-write, a load from one mapped readable); otherwise it faults and waits
 * for the lock (mu_), which every fault, release and acquire of the PE holds. A faulting access runs
 * again after the fault gave the lock back, and may fault again. The threads join before the PE's
 * release, and the second thread starts a phase after the PE's acquire.
 *
 * Steps. Each atomic block is one step that other PEs (and PE 1's other thread) can see or be seen by:
 * an access with its fault's first part, telling a home of a copy (bit; count), copying a page, the
 * three parts of a release (diffs; the tracker; home pages, notices and the barrier), collecting the
 * notices, refreshing or dropping one stale copy. What a thread does that nobody else sees (loop control,
 * choosing the next access, the part of a release that wrote nothing back, taking and giving back the
 * lock, waiting at the barrier, the ghost bookkeeping) is folded into a neighbouring step, which only
 * removes interleavings that end in the same states. Values no longer used (an invalid copy's frame, a
 * closed page's twin, locals) are reset to 0, so states that differ only in them are one.
 *
 * Checked by tests/model/CMakeLists.txt (model/README.md has their sizes): NPE=2 NPG=2 with 2 phases
 * (the defaults) and with 3 (a home writes a page that a release closed; -DNO_OVERRUN), NPE=3 NPG=1 (two
 * copies of a page: the count) with and without FAR_PEERS, THREADS (NPE=2 NPG=2, -DNO_OVERRUN), and each
 * broken variant below with the defaults (BUG_COUNT_FIRST with 3 phases, BUG_TWIN_AFTER_MAP with THREADS).
 *
 * Properties (assertions):
 *   read_ok    a data-race-free read returns the latest value written to its word
 *   final_ok   after the last phase every home frame holds the latest value of each of its words
 *   no deadlock (pan's invalid end states)
 *
 * Deliberately broken variants (model/check.sh release --expect-violation FLAG):
 *   BUG_NO_FRESH         a copy does not tell the home (no bit)    -> the home's writes go unnoticed
 *   BUG_COUNT_FIRST      a copy counts before it sets its bit      -> the home looks, finds nothing, and
 *                                                                     does not look again
 *   BUG_WHOLE_PAGE       write-back sends every word, not a diff   -> a concurrent writer's word is lost
 *   BUG_HOME_NO_NOTICE   the home does not notice its written tracked pages
 *   BUG_NO_CONSERVATIVE  a page found copied is not noticed when the home may have written it before
 *   BUG_NO_EARLY_FLUSH   an acquire refreshes or drops a written copy without writing it back first
 *   BUG_TWIN_AFTER_MAP   (with THREADS) a write fault on an invalid copy maps it read-write before it
 *                        takes the twin: the other thread's store in between is in the twin, never sent
 */

#ifndef NPE
#define NPE 2
#endif
#ifndef NPG
#define NPG 2                   /* pages; page p's home is PE p, so NPG <= NPE */
#endif
#ifndef W
#define W   2                   /* words per page */
#endif
#ifndef NPH
#define NPH 2                   /* phases */
#endif
#ifndef OPS
#define OPS 1                   /* accesses per PE per phase (each maybe followed by an acquire) */
#endif
#define HOMEOF(p)  (p)
#define IX(i,p)    ((i)*NPG + (p))               /* (PE i, page p) */
#define WX(i,p,k)  (((i)*NPG + (p))*W + (k))     /* word k of PE i's frame (or twin) of page p */
#define RX(q,i,p)  (((q)*NPE + (i))*NPG + (p))   /* ring: page p from PE q, for PE i */
#define FREE    255             /* claim[p*W+w]: word not accessed yet in this phase */
#define READERS 254             /*   ... only read; otherwise its single writer (a thread, see TID) */
#define TID(i,t)   ((i) + (t)*NPE)               /* thread t of PE i; thread 1 exists at PE 1 only */

/* The PE's lock (mu_), taken and given back inside a step: write `LOCK(i) stmt` and `UNLOCK(i) stmt`
 * (the macros bring their ';'). Taking it while the other thread holds it blocks in the middle of the
 * step, which goes on once it is free. JOINED(i): PE 1's threads have joined (before its release).
 * RETRY(i): PE i has another thread, so a faulting access runs again as a step of its own (retried). */
#ifdef THREADS
#define LOCK(i)    mu[i] == 0 -> mu[i] = 1;
#define UNLOCK(i)  mu[i] = 0;
#define JOINED(i)  && (i != 1 || joined > ph)
#define RETRY(i)   (i == 1)
#else
#define LOCK(i)
#define UNLOCK(i)
#define JOINED(i)
#define RETRY(i)   0
#endif
/* The page's state allows the access without a fault */
#define MAPPED(i)  (wr == 0 && st[IX(i,p)] != invalid || wr == 1 && st[IX(i,p)] == modified)

mtype = { invalid, shared, modified };

mtype st[NPE*NPG];
byte  frame[NPE*NPG*W];
byte  twin[NPE*NPG*W];
bit   copied[NPE*NPG];
bit   flushed[NPE*NPG];
bit   ring[NPE*NPE*NPG];
bit   bits[NPG];                /* at the page's home */
bit   counted[NPG];             /* at the page's home: its count moved since its last look */
bit   tracked[NPG], home_dirty[NPG], home_hot[NPG];
#ifdef THREADS
bit   mu[NPE];                  /* the PE's protocol lock */
byte  joined, started;          /* PE 1's second thread: phases done, phases it may start */
#endif

byte  latest[NPG*W];            /* ghost: the last value written to each word */
byte  claim[NPG*W];             /* ghost: data-race freedom within a phase */
byte  arrived, epoch, finished;
hidden byte read_ok, final_ok;

inline copy_page(i, p) {        /* the home's frame into PE i's */
  for (k : 0 .. W-1) { frame[WX(i,p,k)] = frame[WX(HOMEOF(p),p,k)] }; k = 0
}

inline make_twin(i, p) {
  for (k : 0 .. W-1) { twin[WX(i,p,k)] = frame[WX(i,p,k)] }; k = 0
}

inline clear_twin(i, p) {       /* a twin no longer used */
  for (k : 0 .. W-1) { twin[WX(i,p,k)] = 0 }; k = 0
}

inline clear_frame(i, p) {      /* an invalid copy's frame, unused until the next copy */
  for (k : 0 .. W-1) { frame[WX(i,p,k)] = 0 }; k = 0
}

/* write_diff: the changed words go into the twin and from there to the home frame; changed = whether any
 * did, seen = whether a home frame was written. */
inline write_diff(i, p) {
  changed = 0;
  for (k : 0 .. W-1) {
    if
    :: frame[WX(i,p,k)] != twin[WX(i,p,k)] ->
         twin[WX(i,p,k)] = frame[WX(i,p,k)]; frame[WX(HOMEOF(p),p,k)] = twin[WX(i,p,k)]; changed = 1; seen = 1
#ifdef BUG_WHOLE_PAGE
    :: else -> frame[WX(HOMEOF(p),p,k)] = frame[WX(i,p,k)]; seen = 1
#else
    :: else
#endif
    fi
  };
  k = 0
}

/* twin_matches, negated: the home compares its open page with its twin, updating the twin. */
inline home_compare(i, p) {
  changed = 0;
  for (k : 0 .. W-1) {
    if
    :: frame[WX(i,p,k)] != twin[WX(i,p,k)] -> twin[WX(i,p,k)] = frame[WX(i,p,k)]; changed = 1
    :: else
    fi
  };
  k = 0
}

/* The access itself: a read checks its value, a write stores the next one. */
inline do_access(i, t) {
  if
  :: wr == 0 -> read_ok = (frame[WX(i,p,w)] == latest[p*W + w]); assert(read_ok); read_ok = 0
  :: wr == 1 -> latest[p*W + w]++; frame[WX(i,p,w)] = latest[p*W + w]
  fi;
  p = 0; w = 0; wr = 0
}

/* After an access, thread t goes on: the program thread (t = 0) maybe acquires next (acq); PE 1's second
 * thread joins after its last access of the phase, and ends after the last phase. */
inline accessed(t) {
  if
  :: t == 0 -> if :: skip :: acq = 1 fi
#ifdef THREADS
  :: t == 1 && op < OPS
  :: t == 1 && op == OPS -> op = 0; ph++; joined++; if :: ph == NPH -> goto finish :: else fi
#endif
  fi;
  goto next
}

/* The faulting access once the fault is handled and the lock given back: the instruction runs again. At
 * a PE with one thread nothing of this PE can happen in between, so it runs in the same step; at PE 1
 * with THREADS it is a step of its own (the other thread may run first), and may fault again. */
inline retried(i, t) {
  UNLOCK(i)
  if
  :: RETRY(i) -> goto retry
  :: else -> do_access(i, t); accessed(t)
  fi
}

/* fetch_copies, after telling the home: a full fence, copy, map; for a write, the twin is made before
 * the page is mapped read-write. */
inline fetched(i, t) {
  copy_page(i, p);
  if
  :: wr == 0 -> st[IX(i,p)] = shared
  :: wr == 1 ->
#ifdef BUG_TWIN_AFTER_MAP
       st[IX(i,p)] = modified; goto twin_late                /* mapped read-write; the twin comes next */
#else
       make_twin(i, p); st[IX(i,p)] = modified
#endif
  fi;
  retried(i, t)
}

/* release_protocol::fault, with the lock held: a write fault at the home, one at a copy, or, for an
 * invalid copy, fetch_copies up to telling the home (falls through: the rest of telling and the copy are
 * steps of their own) */
inline fault(i, t) {
  if
  :: MAPPED(i) -> retried(i, t)                                /* another thread got it first */
  :: HOMEOF(p) == i && wr == 1 && st[IX(i,p)] == shared ->     /* a write to a closed home page */
       if :: tracked[p] -> home_dirty[p] = 1 :: else fi;
       st[IX(i,p)] = modified;
       retried(i, t)
  :: HOMEOF(p) != i && wr == 1 && st[IX(i,p)] == shared ->
       make_twin(i, p); st[IX(i,p)] = modified;
       retried(i, t)
  :: HOMEOF(p) != i && st[IX(i,p)] == invalid ->
       if
       :: copied[IX(i,p)] -> fetched(i, t)                     /* told before: no fence */
#if defined(BUG_NO_FRESH)
       :: else -> copied[IX(i,p)] = 1; fetched(i, t)
#elif defined(BUG_COUNT_FIRST)
       :: else -> counted[HOMEOF(p)] = 1
#else
       :: else -> bits[p] = 1; copied[IX(i,p)] = 1
#endif
       fi
  fi
}

/* Thread t of PE i: one data-race-free access of word w of page p (wr: 0 read, 1 write, 2 none: any
 * access may be skipped, so the claims need no step of their own), through release_protocol::fault when
 * the page's state does not allow it. One step with the choice: the access, or the fault's first part. */
inline access(i, t, guard) {
  atomic {
    guard -> op++;
    select(p : 0 .. NPG-1);
    select(w : 0 .. W-1);
    if
    :: claim[p*W + w] == FREE || claim[p*W + w] == READERS || claim[p*W + w] == TID(i,t) -> wr = 0
    :: claim[p*W + w] == FREE || claim[p*W + w] == TID(i,t) -> wr = 1
    :: wr = 2
    fi;
    if
    :: wr == 0 && claim[p*W + w] == FREE -> claim[p*W + w] = READERS
    :: wr == 1 -> claim[p*W + w] = TID(i,t)
    :: else
    fi;
    if
    :: wr == 2 -> p = 0; w = 0; wr = 0; accessed(t)
    :: wr != 2 && MAPPED(i) -> do_access(i, t); accessed(t)
    :: else
    fi;
    LOCK(i)
    fault(i, t)
  };
  /* here only when telling the home (the bit, then the count, each one step: add_copy), then the copy */
told:
#if defined(BUG_COUNT_FIRST)
  atomic { bits[p] = 1; copied[IX(i,p)] = 1 };
#elif !defined(FAR_PEERS) && !defined(BUG_NO_FRESH)
  atomic { counted[HOMEOF(p)] = 1 };
#endif
  atomic { fetched(i, t) };
#ifdef BUG_TWIN_AFTER_MAP
twin_late:
  atomic { make_twin(i, p); retried(i, t) };
#endif
retry:                                  /* the faulting access again (RETRY only) */
  atomic {
    if
    :: MAPPED(i) -> do_access(i, t); accessed(t)
    :: else
    fi;
    LOCK(i)
    fault(i, t);
    goto told
  }
}

/* release_copies: the notices of copies flushed at acquires since the last release, then the diffs */
inline release_copies(i) {
  for (p : 0 .. NPG-1) {
    notices[p] = flushed[IX(i,p)]; flushed[IX(i,p)] = 0;
    if
    :: HOMEOF(p) != i && st[IX(i,p)] == modified ->
         write_diff(i, p);
         if
         :: changed -> notices[p] = 1
         :: else ->
              if
              :: skip                                          /* stays open */
              :: st[IX(i,p)] = shared; clear_twin(i, p)        /* closes */
              fi
         fi
    :: else
    fi
  };
  p = 0; changed = 0
}

/* track_new_copies (at the home of page i): a full fence, then copy_tracker::take -- the count (one
 * load), then the bits */
inline track_new_copies(i) {
#ifdef FAR_PEERS
  look = 1;
#else
  if
  :: counted[i] -> counted[i] = 0; look = 1
  :: else
  fi;
#endif
  if
  :: look && bits[i] ->
       bits[i] = 0;
       if
       :: !tracked[i] -> tracked[i] = 1;
#ifndef BUG_NO_CONSERVATIVE
            if :: st[IX(i,i)] == modified -> home_dirty[i] = 1 :: else fi
#endif
       :: else
       fi
  :: else
  fi;
  look = 0
}

/* release_home_pages (of page i, the one PE i is home of), publish, give the lock back, arrive at the
 * barrier */
inline release_home_pages(i) {
  p = i;
  if
  :: i < NPG && home_hot[i] ->
       home_compare(i, p);
       if
       :: changed -> notices[i] = 1
       :: else ->
            if
            :: skip
            :: home_hot[i] = 0; st[IX(i,i)] = shared; clear_twin(i, p)
            fi
       fi
  :: else
  fi;
  if
  :: i < NPG && home_dirty[i] -> home_dirty[i] = 0; make_twin(i, p); home_hot[i] = 1;
#ifndef BUG_HOME_NO_NOTICE
       notices[i] = 1
#endif
  :: else
  fi;
  for (p : 0 .. NPG-1) {
    if
    :: notices[p] -> for (q : 0 .. NPE-1) { if :: q != i -> ring[RX(i,q,p)] = 1 :: else fi }; q = 0
    :: else
    fi;
    notices[p] = 0
  };
  p = 0; changed = 0;
  UNLOCK(i)
  arrived++;
  if
  :: arrived == NPE ->                                       /* the last one in opens the next phase */
       arrived = 0;
       for (k : 0 .. NPG*W-1) { claim[k] = FREE }; k = 0;
       epoch++
  :: else
  fi
}

/* The end of an acquire: the lock given back; after the phase's last one, the next phase (PE 1's second
 * thread may go on) or the end */
inline acquired(i) {
  p = 0;
  UNLOCK(i)
  if
  :: eop -> eop = 0; op = 0; ph++;
#ifdef THREADS
       if :: i == 1 -> started++ :: else fi;
#endif
       if :: ph == NPH -> finished++; goto finish :: else fi
  :: else
  fi;
  goto next
}

/* notice_rings::collect: the pages in other PEs' rings (or every page, after an overrun); stale[p] is
 * left set for the copies this PE holds (drop_stale's filter), p at the first of them */
inline collect(i) {
  for (p : 0 .. NPG-1) {
    for (q : 0 .. NPE-1) {
      if
      :: q != i && ring[RX(q,i,p)] -> ring[RX(q,i,p)] = 0; stale[p] = 1
      :: else
      fi
    };
    q = 0
  };
#ifndef NO_OVERRUN
  if
  :: skip
  :: for (p : 0 .. NPG-1) { stale[p] = 1 }                 /* a ring overran: every copy is stale */
  fi;
#endif
  for (p : 0 .. NPG-1) {
    if :: HOMEOF(p) == i || st[IX(i,p)] == invalid -> stale[p] = 0 :: else fi
  };
  p = 0;
  do :: p < NPG && !stale[p] -> p++ :: else -> break od;
  if :: p == NPG -> acquired(i) :: else -> goto pages fi
}

/* drop_stale, for stale copy p: a written copy's diff goes to the home first (noticed at the next
 * release), then the copy is refreshed from the home's frame or dropped; p moves to the next one. */
inline drop_stale(i) {
#ifndef BUG_NO_EARLY_FLUSH
  if
  :: st[IX(i,p)] == modified -> write_diff(i, p); if :: changed -> flushed[IX(i,p)] = 1 :: else fi
  :: else
  fi;
#endif
  if
  :: copy_page(i, p);                                         /* refreshed */
       if :: st[IX(i,p)] == modified -> make_twin(i, p) :: else fi
  :: st[IX(i,p)] = invalid; clear_frame(i, p); clear_twin(i, p)  /* dropped */
  fi;
  stale[p] = 0; changed = 0; seen = 0;
  p++;
  do :: p < NPG && !stale[p] -> p++ :: else -> break od;
  if :: p == NPG -> acquired(i) :: else fi
}

/* PE i's program thread. Its steps end with goto: next (the thread's next step), pages (the stale copies
 * of an acquire), finish. */
proctype pe(byte i) {
  byte ph, op, p, w, k, q;
  byte wr;
  bit changed, seen, look, acq, eop;
  bit notices[NPG], stale[NPG];
next:
  if
  :: atomic { acq -> acq = 0; LOCK(i) collect(i) }        /* rdsm_dsm_acquire (or a lock) between
                                                           * accesses: this PE's written copies meet
                                                           * other PEs' notices before it released them */
  :: access(i, 0, !acq && op < OPS)
  :: atomic { !acq && op == OPS JOINED(i) -> LOCK(i) release_copies(i);   /* the phase's release */
              if
              :: !seen && i >= NPG -> goto publish_now    /* nothing written back: one step */
              :: !seen && i < NPG -> track_new_copies(i); goto publish
              :: seen && i >= NPG -> seen = 0; goto publish   /* not a home: no tracker */
              :: else -> seen = 0
              fi };
     atomic { track_new_copies(i) };
publish:
     atomic { seen = 0;
publish_now:
              release_home_pages(i) };
     atomic { epoch > ph -> LOCK(i) eop = 1; collect(i) }  /* after the barrier, the phase's acquire */
  fi;
pages:
  do
  :: atomic { drop_stale(i) }
  od;
finish:
  skip
}

#ifdef THREADS
/* PE 1's second thread: its accesses of each phase, no synchronization of its own */
proctype worker(byte i) {
  byte ph, op, p, w, k;
  byte wr;
  bit acq;                      /* the program thread's (accessed) */
next:
  access(i, 1, started >= ph);
finish:
  skip
}
#endif

init {
  byte i, k;
  atomic {
    for (i : 0 .. NPE*NPG-1) { st[i] = invalid };
    for (i : 0 .. NPG-1) { st[IX(HOMEOF(i),i)] = modified };  /* a home holds its pages writable, untracked */
    for (k : 0 .. NPG*W-1) { claim[k] = FREE };
    i = 0; k = 0;
    for (i : 0 .. NPE-1) { run pe(i) };
#ifdef THREADS
    run worker(1);
#endif
    i = 0
  }
  finished == NPE;
  for (k : 0 .. NPG*W-1) {
    final_ok = (frame[WX(HOMEOF(k/W), k/W, k%W)] == latest[k]); assert(final_ok)
  }
}
