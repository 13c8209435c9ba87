//===- WorkSplit.h - how parallel loops divide their work ------*- C++ -*-===//
//
// The CPU code's parallel loops run under the static schedule of
// libhodurt's thread teams (runtime/src/threads.c): a loop of U iterations
// on T threads gives each thread ceil(U / T) or floor(U / T) consecutive
// iterations. hoduc does not know T when it compiles, so a loop's
// iterations ("pieces": whole register tiles, blocks of tile rows, rows,
// channels) are chosen to divide evenly at the thread counts machines have.
// Pure functions, no MLIR: unit-tested in test/unit/WorkSplitTest.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef HODU_TARGET_CPU_WORKSPLIT_H
#define HODU_TARGET_CPU_WORKSPLIT_H

#include <cstdint>

namespace hodu::cpu {

/// How evenly `pieces` equal pieces spread over `threads` threads: the mean
/// share over the busiest thread's share, pieces / threads / ceil(pieces /
/// threads). 1 is even; 0.5 means the busiest thread runs twice the mean.
double splitBalance(int64_t pieces, int64_t threads);

/// The balance of `pieces` pieces judged at 2, 4, 8 and 16 threads,
/// weighted 3:2:1:1 (laptops and small servers first), in [0, 1].
double splitScore(int64_t pieces);

/// How many pieces a loop of `units` whole units of work (register tiles,
/// blocks, rows) is cut into: the count in [1, min(units, maxPieces)] with
/// the best splitScore, each piece a whole number of units. With
/// `divisorsOnly`, only counts that divide `units` (pieces of one static
/// size), 1 where no other does. Ties go to fewer pieces (less per-piece
/// scratch and loop overhead).
int64_t choosePieces(int64_t units, int64_t maxPieces, bool divisorsOnly);

/// The pieces of a parallel loop of `units` iterations whose tiles should
/// keep one static size: choosePieces over divisors of `units` where one
/// splits it, else over any count.
int64_t loopPieces(int64_t units, int64_t maxPieces);

/// How evenly a loop of `units` iterations cut into its loopPieces (the
/// last one shorter where they do not divide it) spreads over 2, 4, 8
/// and 16 threads (those up to `maxThreads`), weighted as splitScore: the
/// busiest thread's units against the mean, in (0, 1].
double loopScore(int64_t units, int64_t maxPieces, int64_t maxThreads = 16);

/// Which loop of an op to spread over threads, given each loop's range and
/// whether it may be (a parallel loop): the one whose loopPieces split
/// best at 2 and 4 threads (loopScore), the outermost of equals, and
/// `vectorLoop` (the one the vector code runs along, the output's
/// innermost dim; -1 for none) only where no other loop of range 2 or more
/// may be split. -1 where none has a range of 2 or more.
int64_t chooseSplitLoop(const int64_t *ranges, const bool *splittable,
                        int64_t loops, int64_t vectorLoop, int64_t maxPieces);

/// Whether an op of `work` (iteration points x body ops) is worth forking
/// a thread team for: at least `minWork`. Below it the fork and join (and
/// the data moving between cores) cost more than a second thread saves.
inline bool worthThreads(int64_t work, int64_t minWork) {
  return work >= minWork && minWork > 0;
}

} // namespace hodu::cpu

#endif // HODU_TARGET_CPU_WORKSPLIT_H
