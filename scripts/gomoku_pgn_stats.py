#!/usr/bin/env python3
"""gomoku_pgn_stats.py PGN NAME OTHER [N]: NAME's score against OTHER over the first N games
of a `cutoff match` PGN, the plies a game, the ply of OTHER's first mate score (`{M..`, as
the referee writes an engine's reported mate), each side's thinking a game (the move
comments' seconds, book moves left out) and NAME's points as x (the first player, PGN's
White) and as o."""
import re
import sys


def main():
    path, name, other = sys.argv[1:4]
    games = [g for g in re.split(r"\n(?=\[Event )", open(path).read()) if g.strip()]
    if len(sys.argv) > 4:
        games = games[: int(sys.argv[4])]
    won = lost = drawn = 0
    colour_points, colour_games = {True: 0.0, False: 0.0}, {True: 0, False: 0}
    plies, mates, think = [], [], {name: [], other: []}
    for game in games:
        first = re.search(r'\[White "([^"]+)"\]', game).group(1) == name
        result = re.search(r'\[Result "([^"]+)"\]', game).group(1)
        colour_games[first] += 1
        if result == "1/2-1/2":
            drawn += 1
            colour_points[first] += 0.5
        elif (result == "1-0") == first:
            won += 1
            colour_points[first] += 1
        else:
            lost += 1
        body = re.sub(r"\d+\.\s", " ", game.split("\n\n", 1)[1])
        moves = re.findall(r"([a-v]\d+)\s*(\{[^}]*\})?", body)
        plies.append(len(moves))
        spent, mate = {name: 0.0, other: 0.0}, None
        for ply, (_, comment) in enumerate(moves):
            side = name if (ply % 2 == 0) == first else other
            seconds = re.search(r"([\d.]+)s", comment or "")
            if seconds and "book" not in comment:
                spent[side] += float(seconds.group(1))
            if side == other and mate is None and re.search(r"\{M\d", comment or ""):
                mate = ply + 1
        for side in spent:
            think[side].append(spent[side])
        if mate:
            mates.append(mate)
    n = max(len(games), 1)
    print(f"games {len(games)}: {name} +{won} ={drawn} -{lost} ({100 * (won + drawn / 2) / n:.1f}%)")
    print(f"plies a game {sum(plies) / n:.1f}; {other}'s first mate score at ply "
          f"{sum(mates) / max(len(mates), 1):.1f} (in {len(mates)} games)")
    print(f"thinking a game: {name} {sum(think[name]) / n:.2f} s, {other} {sum(think[other]) / n:.2f} s")
    print(f"{name} as x {colour_points[True]:g} of {colour_games[True]}, "
          f"as o {colour_points[False]:g} of {colour_games[False]}")


if __name__ == "__main__":
    main()
