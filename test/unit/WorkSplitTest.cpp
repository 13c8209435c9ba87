//===- WorkSplitTest.cpp - how parallel loops divide their work -----------===//
//
// The pieces hoduc cuts a parallel loop into (WorkSplit.h): whole units,
// shares that are even at the thread counts machines have, and no team
// for work too small to pay for one.
//
//===----------------------------------------------------------------------===//

#include "hodu/Target/CPU/WorkSplit.h"

#include <gtest/gtest.h>

using namespace hodu::cpu;

TEST(WorkSplit, BalanceIsTheMeanShareOverTheBusiestThreads) {
  EXPECT_DOUBLE_EQ(splitBalance(8, 2), 1.0);
  EXPECT_DOUBLE_EQ(splitBalance(7, 2), 3.5 / 4); // 4 and 3
  EXPECT_DOUBLE_EQ(splitBalance(2, 4), 0.5);     // two threads idle
  EXPECT_DOUBLE_EQ(splitBalance(1, 1), 1.0);
  EXPECT_DOUBLE_EQ(splitBalance(5, 1), 1.0);
}

TEST(WorkSplit, PiecesAreEvenAtTwoToSixteenThreads) {
  // 14 blocks of tile rows: 14 pieces (7 and 7 on two threads), not 7.
  EXPECT_EQ(choosePieces(14, 16, true), 14);
  // Capped at 8, 14 blocks can only be cut into 7 or 2 whole pieces.
  EXPECT_EQ(choosePieces(14, 8, true), 7);
  // 32 channels: 16 pieces of 2, even at every count up to 16.
  EXPECT_EQ(choosePieces(32, 16, true), 16);
  // 56 rows: 8 pieces of 7 is even at 2, 4 and 8 threads; 14 is not
  // even at 4 or 8 and is no better at 16 (the weights favour few
  // threads): ties and losses go to fewer pieces.
  EXPECT_EQ(choosePieces(56, 16, true), 8);
  // Every choice is a whole number of units that divides them.
  for (int64_t units = 1; units <= 300; ++units) {
    int64_t p = choosePieces(units, 16, true);
    ASSERT_GE(p, 1);
    ASSERT_LE(p, std::min<int64_t>(units, 16));
    ASSERT_EQ(units % p, 0) << units;
    // No divisor count of at most 16 splits better.
    for (int64_t q = 2; q <= std::min<int64_t>(units, 16); ++q)
      if (units % q == 0)
        ASSERT_LE(splitScore(q), splitScore(p) + 1e-9) << units << " " << q;
  }
}

TEST(WorkSplit, PrimeCountsFallBackToUnevenPieces) {
  // 17 rows: no divisor but 1 and 17 (> 16): divisorsOnly says 1, and the
  // caller cuts 16 pieces of ceil(17/16) rows instead.
  EXPECT_EQ(choosePieces(17, 16, true), 1);
  EXPECT_EQ(choosePieces(17, 16, false), 16);
  // Units fewer than the cap: never more pieces than units.
  EXPECT_EQ(choosePieces(3, 16, false), 2);
  EXPECT_EQ(choosePieces(1, 16, false), 1);
  EXPECT_EQ(choosePieces(0, 16, false), 1);
}

TEST(WorkSplit, NoTeamForTinyOps) {
  EXPECT_FALSE(worthThreads(1000, 65536));
  EXPECT_FALSE(worthThreads(65535, 65536));
  EXPECT_TRUE(worthThreads(65536, 65536));
  EXPECT_FALSE(worthThreads(1 << 30, 0)); // a minimum of 0: no threads
}

TEST(WorkSplit, LoopScoreCountsUnevenPieces) {
  // 3 rows in 3 pieces: the busiest of two threads runs 2 of them, of
  // four 1 (one idle), of eight 1 (five idle).
  EXPECT_NEAR(loopScore(3, 16), (3 * 0.75 + 2 * 0.75 + 0.375 + 0.1875) / 7,
              1e-12);
  // 32 channels in 16 pieces: even at every count.
  EXPECT_DOUBLE_EQ(loopScore(32, 16), 1.0);
  // 17 rows: no divisor, so 16 pieces of ceil(17/16) = 2 rows, which is 9
  // iterations (the last of 1 row): 5 of them (10 rows) on the busier of
  // two threads, against a mean of 8.5.
  EXPECT_NEAR(loopScore(17, 16),
              (3 * 8.5 / 10 + 2 * 4.25 / 6 + 2.125 / 4 + 1.0625 / 2) / 7,
              1e-12);
}

TEST(WorkSplit, TheLoopThatSplitsBestIsSpread) {
  const bool all[] = {true, true, true, true, true};
  // A [3, 12, 64] partial: 12 splits better than 3 (2:1 on two threads).
  const int64_t partial[] = {3, 12, 64};
  EXPECT_EQ(chooseSplitLoop(partial, all, 3, 2, 16), 1);
  // NCHW with 32 channels: the channels, the outermost of equal splits.
  const int64_t nchw[] = {1, 32, 112, 112};
  EXPECT_EQ(chooseSplitLoop(nchw, all, 4, 3, 16), 1);
  // 24 channels (12 pieces, even at 2 and 4 threads) stay the split over
  // 32 rows (16 pieces, even at 8 and 16 too).
  const int64_t c24[] = {1, 24, 32, 32};
  EXPECT_EQ(chooseSplitLoop(c24, all, 4, 3, 16), 1);
  // 3 channels: the rows instead.
  const int64_t rgb[] = {1, 3, 224, 224};
  EXPECT_EQ(chooseSplitLoop(rgb, all, 4, 3, 16), 2);
  // A loop that may not be split (a reduction) is not taken.
  const bool notRows[] = {true, true, false, true};
  EXPECT_EQ(chooseSplitLoop(rgb, notRows, 4, 3, 16), 1);
  // A pooling [24, 37, 16] with its two window loops after: the 16
  // columns are the vector loop, not split while the 24 rows can be.
  const int64_t pool[] = {24, 37, 16, 3, 3};
  const bool outputs[] = {true, true, true, false, false};
  EXPECT_EQ(chooseSplitLoop(pool, outputs, 5, 2, 16), 0);
  // The vector loop only where nothing else has 2 or more iterations.
  const int64_t row[] = {1, 4096};
  EXPECT_EQ(chooseSplitLoop(row, all, 2, 1, 16), 1);
  const int64_t two[] = {2, 4096};
  EXPECT_EQ(chooseSplitLoop(two, all, 2, 1, 16), 0);
  const int64_t single[] = {1, 1};
  EXPECT_EQ(chooseSplitLoop(single, all, 2, 1, 16), -1);
}
