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
