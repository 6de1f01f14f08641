/*
 * release.pml -- Promela model of rdsm's release-consistency protocol (src/dsm/release.cpp), which uses no
 * messages: a faulting PE copies the page from its home itself, writers send byte-exact diffs at release,
 * and an acquire refreshes or drops the copies named by other PEs' write notices.
 *
 * One page of W words, homed at PE 0; NPE PEs each run NPH phases of OPS data-race-free accesses, each
 * phase ended by release, barrier, acquire. Names are the implementation's:
 *   st, frame, twin     a PE's state of the page, its frame (PE 0's is the home frame), its twin
 *   copied              the PE told the home of its copy (copy_tracker::add_copy: the page's bit)
 *   fresh               the home's tracker bit for the page (set by copies, taken at the home's release)
 *   tracked             the home knows that copies exist: its writes are noticed
 *   dirty               a copy open for writing (dirty_), compared with its twin at each release
 *   home_dirty          the home's tracked page written since a release closed it (or maybe written
 *                       before a copy was taken)
 *   home_hot            the home's page open with a twin (home_hot_), compared at each release
 *   flushed             a copy written back early at an acquire: its notice goes with the next release
 *   pend[q*NPE+i]       a notice of PE q that PE i has not collected yet (the rings)
 * Every choice the implementation makes by heuristics is left free here, so the model covers all of
 * them: whether an unchanged open page stays open (stays_open), whether a stale copy is refreshed (same
 * host) or dropped (another host).
 *
 * Properties (assertions):
 *   read_ok    a data-race-free read returns the latest value written to its word
 *   final_ok   after the last phase the home frame holds the latest value of every word
 *
 * Deliberately broken variants (model/check.sh release --expect-violation FLAG):
 *   BUG_NO_FRESH         a copy does not tell the home           -> the home's writes go unnoticed
 *   BUG_WHOLE_PAGE       write-back sends every word, not a diff -> a concurrent writer's word is lost
 *   BUG_HOME_NO_NOTICE   the home does not notice its written tracked page
 *   BUG_NO_CONSERVATIVE  a page found copied is not noticed when the home may have written it before
 *   BUG_NO_EARLY_FLUSH   an acquire refreshes or drops a written copy without writing it back first
 */

#ifndef NPE
#define NPE 3
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
#define HOME 0
#define FREE    255             /* claim[w]: word not accessed yet in this phase */
#define READERS 254             /*   ... only read; 0..NPE-1: its single writer */

mtype = { invalid, shared, modified };

mtype st[NPE];
byte  frame[NPE*W];
byte  twin[NPE*W];
bit   copied[NPE];
bit   dirty[NPE];
bit   flushed[NPE];
bit   pend[NPE*NPE];
bit   fresh, tracked, home_dirty, home_hot;

byte  latest[W];                /* ghost: the last value written to each word */
byte  claim[W];                 /* ghost: data-race freedom within a phase */
byte  arrived, epoch, finished;
hidden byte read_ok, final_ok;

inline copy_page(i) {           /* the home's frame into PE i's */
  for (k : 0 .. W-1) { frame[i*W + k] = frame[HOME*W + k] }; k = 0
}

inline make_twin(i) {
  for (k : 0 .. W-1) { twin[i*W + k] = frame[i*W + k] }; k = 0
}

/* write_diff: the changed words go into the twin and to the home frame; changed = whether any did. */
inline write_diff(i) {
  changed = 0;
  for (k : 0 .. W-1) {
    if
    :: frame[i*W + k] != twin[i*W + k] -> twin[i*W + k] = frame[i*W + k]; frame[HOME*W + k] = frame[i*W + k]; changed = 1
#ifdef BUG_WHOLE_PAGE
    :: else -> frame[HOME*W + k] = frame[i*W + k]
#else
    :: else
#endif
    fi
  };
  k = 0
}

/* The home compares its open page with its twin (twin_matches), updating the twin. */
inline home_compare() {
  changed = 0;
  for (k : 0 .. W-1) {
    if
    :: frame[HOME*W + k] != twin[HOME*W + k] -> twin[HOME*W + k] = frame[HOME*W + k]; changed = 1
    :: else
    fi
  };
  k = 0
}

inline publish(i) {
  for (q : 0 .. NPE-1) { if :: q != i -> pend[i*NPE + q] = 1 :: else fi }; q = 0
}

/* A read fault at a copy: tell the home once (one atomic step), then copy and map read-only (another);
 * other PEs run in between. */
inline read_fault(i) {
  if
#ifndef BUG_NO_FRESH
  :: !copied[i] -> fresh = 1; copied[i] = 1
#else
  :: !copied[i] -> copied[i] = 1
#endif
  :: else
  fi;
  atomic { copy_page(i); st[i] = shared }
}

inline access(i) {
  /* choose a word and a kind the data-race-free program may do now */
  atomic {
    select(w : 0 .. W-1);
    if
    :: claim[w] == FREE || claim[w] == READERS || claim[w] == i -> wr = 0
    :: claim[w] == FREE || claim[w] == i -> wr = 1
    :: else -> wr = 2                                      /* another PE writes it: no access */
    fi;
    if
    :: wr == 0 && claim[w] == FREE -> claim[w] = READERS
    :: wr == 1 -> claim[w] = i
    :: else
    fi
  };
  if
  :: wr == 2
  :: wr != 2 && i == HOME ->
       atomic {
         if
         :: wr == 1 && st[HOME] == shared -> home_dirty = 1; st[HOME] = modified  /* a tracked page, closed */
         :: else
         fi;
         if
         :: wr == 1 -> latest[w]++; frame[HOME*W + w] = latest[w]
         :: else -> read_ok = (frame[HOME*W + w] == latest[w]); assert(read_ok)
         fi
       }
  :: wr != 2 && i != HOME ->
       if
       :: st[i] == invalid -> read_fault(i)
       :: else
       fi;
       atomic {
         if
         :: wr == 1 && st[i] != modified -> make_twin(i); dirty[i] = 1; st[i] = modified  /* write fault */
         :: else
         fi;
         if
         :: wr == 1 -> latest[w]++; frame[i*W + w] = latest[w]
         :: else -> read_ok = (frame[i*W + w] == latest[w]); assert(read_ok)
         fi
       }
  fi
}

inline release(i) {
  atomic {
    notice = flushed[i]; flushed[i] = 0;
    if
    :: i != HOME && dirty[i] ->
         write_diff(i);
         if
         :: changed -> notice = 1
         :: else ->
              if
              :: skip                                      /* stays open */
              :: dirty[i] = 0; st[i] = shared              /* closes */
              fi
         fi
    :: else
    fi;
    if
    :: i == HOME ->
         if
         :: fresh -> fresh = 0;                            /* copy_tracker::take */
              if
              :: !tracked -> tracked = 1;
#ifndef BUG_NO_CONSERVATIVE
                   if :: st[HOME] == modified -> home_dirty = 1 :: else fi
#endif
              :: else
              fi
         :: else
         fi;
         if
         :: home_hot ->
              home_compare();
              if
              :: changed -> notice = 1
              :: else ->
                   if
                   :: skip
                   :: home_hot = 0; st[HOME] = shared
                   fi
              fi
         :: else
         fi;
         if
         :: home_dirty -> home_dirty = 0;
              for (k : 0 .. W-1) { twin[HOME*W + k] = frame[HOME*W + k] }; k = 0;
              home_hot = 1;
#ifndef BUG_HOME_NO_NOTICE
              notice = 1
#endif
         :: else
         fi
    :: else
    fi;
    if
    :: notice -> publish(i)
    :: else
    fi;
    notice = 0; changed = 0
  }
}

inline acquire(i) {
  atomic {
    stale = 0;
    for (q : 0 .. NPE-1) {
      if
      :: q != i && pend[q*NPE + i] -> pend[q*NPE + i] = 0; stale = 1
      :: else
      fi
    };
    q = 0;
    if
    :: stale && i != HOME && st[i] != invalid ->
#ifndef BUG_NO_EARLY_FLUSH
         if
         :: st[i] == modified -> write_diff(i); if :: changed -> flushed[i] = 1 :: else fi
         :: else
         fi;
#endif
         if
         :: copy_page(i);                                  /* refreshed (home on this host) */
              if :: st[i] == modified -> make_twin(i) :: else fi
         :: st[i] = invalid; dirty[i] = 0                  /* dropped (home elsewhere) */
         fi
    :: else
    fi;
    stale = 0; changed = 0
  }
}

proctype pe(byte i) {
  byte ph, op, w, k, q;
  byte wr;
  bit notice, changed, stale;
  for (ph : 0 .. NPH-1) {
    for (op : 1 .. OPS) {
      access(i);
      if
      :: skip
      :: acquire(i)        /* rdsm_dsm_acquire (or a lock) between accesses: this PE's written copies meet */
      fi                   /* other PEs' notices before this PE released them */
    };
    release(i);
    atomic {
      arrived++;
      if
      :: arrived == NPE ->                                 /* the last one in opens the next phase */
           arrived = 0;
           for (k : 0 .. W-1) { claim[k] = FREE }; k = 0;
           epoch++
      :: else
      fi
    };
    (epoch > ph);
    acquire(i)
  };
  finished++
}

init {
  byte i, k;
  atomic {
    for (i : 0 .. NPE-1) { st[i] = invalid };
    st[HOME] = modified;                                   /* a home holds its pages writable, untracked */
    for (k : 0 .. W-1) { claim[k] = FREE };
    i = 0; k = 0;
    for (i : 0 .. NPE-1) { run pe(i) };
    i = 0
  }
  finished == NPE;
  for (k : 0 .. W-1) { final_ok = (frame[HOME*W + k] == latest[k]); assert(final_ok) }
}
