//! Spell area templates (CRB — Magic: Aiming a Spell — Area; Burst, Emanation, or Spread;
//! Cone, Cylinder, Line, or Sphere; Line of Effect; Effect — Spread; CRB — Combat: Cover —
//! Cover and Reflex Saves): the exact squares of each shape, drawn.
//!
//! Drawings: `#` wall (blocks line of effect), `=` low wall (cover +4, does not block),
//! `w` ruin (partial cover +2), `I` arrow slit (improved cover +8), `@` the caster's squares,
//! `X` a square of the template, `.` open floor. The drawing is both the map (`X` and `@` are
//! floor) and the expected result: each test redraws the map with the computed template and
//! compares. A burst's or spread's origin is an intersection, named in the test as `<row,col>`
//! (the top-left corner of square (row, col)).

use pf1e_engine::content::map::MapSpec;
use pf1e_engine::geometry::areas::{
    burst, cone, corner_of, cylinder, emanation, line, line_of_effect_from,
    line_of_effect_to_corner, origin_corner, reflex_cover_from, spread, Corner,
};
use pf1e_engine::geometry::grid::{Cell, Grid};

fn grid_of(art: &[&str]) -> Grid {
    let mut text = String::from("name: areas\nterrain: |\n");
    for r in art {
        let row: String = r
            .chars()
            .map(|ch| match ch {
                '#' | '=' | 'w' | 'I' => ch,
                _ => '.',
            })
            .collect();
        text.push_str(&format!("  {row}\n"));
    }
    text.push_str(concat!(
        "legend:\n",
        "  \".\": { type: floor, move_cost: 1 }\n",
        "  \"#\": { type: wall, move_cost: null, blocks_los: true }\n",
        "  \"=\": { type: low_wall, move_cost: 2, cover: true }\n",
        "  \"w\": { type: ruin, move_cost: 2, cover_bonus: 2 }\n",
        "  \"I\": { type: arrow_slit, move_cost: null, cover_bonus: 8 }\n",
    ));
    Grid::from_map(&MapSpec::from_yaml_str(&text, "areas").unwrap())
}

/// The drawing's map redrawn with `cells` as `X` and the caster's squares as `@`.
fn draw(art: &[&str], cells: &[Cell], caster: Option<(Cell, i32)>) -> Vec<String> {
    let mut rows: Vec<Vec<char>> = art
        .iter()
        .map(|r| {
            r.chars()
                .map(|ch| match ch {
                    'X' | '@' => '.',
                    _ => ch,
                })
                .collect()
        })
        .collect();
    if let Some((anchor, side)) = caster {
        for dr in 0..side {
            for dc in 0..side {
                rows[(anchor.row + dr) as usize][(anchor.col + dc) as usize] = '@';
            }
        }
    }
    for c in cells {
        let ch = &mut rows[c.row as usize][c.col as usize];
        assert_eq!(*ch, '.', "template square {c} is not open floor");
        *ch = 'X';
    }
    rows.into_iter().map(|r| r.into_iter().collect()).collect()
}

/// Asserts the template `cells` is exactly the `X`s of `art`, sorted and without repeats.
fn assert_template(art: &[&str], cells: &[Cell], caster: Option<(Cell, i32)>) {
    let mut sorted = cells.to_vec();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted, cells, "sorted by (row, col), no repeats");
    let want: Vec<String> = art.iter().map(|s| s.to_string()).collect();
    let got = draw(art, cells, caster);
    assert_eq!(
        got,
        want,
        "\ngot:\n{}\nwant:\n{}\n",
        got.join("\n"),
        want.join("\n")
    );
}

fn c(row: i32, col: i32) -> Cell {
    Cell::new(row, col)
}

fn count(art: &[&str]) -> usize {
    art.iter().map(|r| r.matches('X').count()).sum()
}

// CRB — Magic: Aiming a Spell — Area: the origin is an intersection, distance counted from
// intersection to intersection (5-10-5), a square is in when its far edge is: a 10-ft burst
// is the 4×4 block around the intersection without its corners.
#[test]
fn crb_burst_10_ft_in_the_open() {
    let art = [
        "........", "........", "...XX...", "..XXXX..", "..XXXX..", "...XX...", "........",
        "........",
    ];
    let g = grid_of(&art);
    let cells = burst(&g, Corner::new(4, 4), 10);
    assert_template(&art, &cells, None);
    assert_eq!(count(&art), 12);
    // An emanation and a cylinder have the same circle.
    assert_eq!(emanation(&g, Corner::new(4, 4), 10), cells);
    assert_eq!(cylinder(&g, Corner::new(4, 4), 10), cells);
    // A 5-ft burst: the four squares around the intersection; under 5 ft: nothing.
    assert_eq!(
        burst(&g, Corner::new(4, 4), 5),
        vec![c(3, 3), c(3, 4), c(4, 3), c(4, 4)]
    );
    assert!(burst(&g, Corner::new(4, 4), 4).is_empty());
}

// CRB — Magic: Aiming a Spell — Area (fireball's 20-ft radius): rows 2-6-6-8-8-6-6-2.
#[test]
fn crb_burst_20_ft_in_the_open() {
    let art = [
        "..........",
        "....XX....",
        "..XXXXXX..",
        "..XXXXXX..",
        ".XXXXXXXX.",
        ".XXXXXXXX.",
        "..XXXXXX..",
        "..XXXXXX..",
        "....XX....",
        "..........",
    ];
    let g = grid_of(&art);
    let cells = burst(&g, Corner::new(5, 5), 20);
    assert_template(&art, &cells, None);
    assert_eq!(count(&art), 44);
    // In the open a spread fills the same squares.
    assert_eq!(spread(&g, Corner::new(5, 5), 20), cells);
}

// CRB — Magic: Aiming a Spell — Area: squares off the map are simply not in the template.
#[test]
fn crb_burst_clipped_at_the_map_edge() {
    let art = ["XXX...", "XX....", "X.....", "......"];
    let g = grid_of(&art);
    assert_template(&art, &burst(&g, Corner::new(0, 0), 15), None);
}

// CRB — Magic: Aiming a Spell — Burst: "It can't affect creatures with total cover from its
// point of origin (in other words, its effects don't extend around corners)". A 20-ft burst at
// <5,5> beside a wall: the squares in the wall's shadow are out.
#[test]
fn crb_burst_does_not_go_around_a_wall() {
    let art = [
        "..........",
        "....XX....",
        "..XXXXXX..",
        "..XXXXX#..",
        ".XXXXXX#..",
        ".XXXXXX#..",
        "..XXXXX#..",
        "..XXXXXX..",
        "....XX....",
        "..........",
    ];
    let g = grid_of(&art);
    assert_template(&art, &burst(&g, Corner::new(5, 5), 20), None);
    assert!(!line_of_effect_from(&g, Corner::new(5, 5), c(5, 8)));
    assert!(line_of_effect_from(&g, Corner::new(5, 5), c(2, 7)));
}

// CRB — Magic: Aiming a Spell — Burst, Emanation, or Spread ("a spread spell extends out like
// a burst but can turn corners"); Effect — Spread ("figure distance by actual distance
// traveled … count around walls, not through them … do not trace diagonals across corners").
// 30 ft from <5,5> beside a wall running down from row 3: the burst stops at the lines that
// graze the wall's top corner; the spread turns that corner — (2,7) is 25 ft away going
// round it ((2,6) at 20 ft, one step east), (3,8) 30 ft (a diagonal counted 5 after it), and
// (4,7) would be 35 ft: out. It never steps diagonally past the wall's corner.
#[test]
fn crb_spread_goes_around_a_wall() {
    let burst_art = [
        "..XXXXXX..",
        ".XXXXXXX..",
        "XXXXXXX...",
        "XXXXXX#...",
        "XXXXXX#...",
        "XXXXXX#...",
        "XXXXXX#...",
        "XXXXXX#...",
        ".XXXXX#...",
        "..XXXX#...",
    ];
    let spread_art = [
        "..XXXXXX..",
        ".XXXXXXXX.",
        "XXXXXXXXX.",
        "XXXXXX#XX.",
        "XXXXXX#...",
        "XXXXXX#...",
        "XXXXXX#...",
        "XXXXXX#...",
        ".XXXXX#...",
        "..XXXX#...",
    ];
    let g = grid_of(&burst_art);
    let o = Corner::new(5, 5);
    assert_template(&burst_art, &burst(&g, o, 30), None);
    assert_template(&spread_art, &spread(&g, o, 30), None);
}

// CRB — Magic: Aiming a Spell — Cylinder: "ignores any obstructions within its area".
#[test]
fn crb_cylinder_ignores_obstructions() {
    let art = [
        "..........",
        "....XX....",
        "..XXXXXX..",
        "..XXXXX#..",
        ".XXXXXX#X.",
        ".XXXXXX#X.",
        "..XXXXX#..",
        "..XXXXXX..",
        "....XX....",
        "..........",
    ];
    let g = grid_of(&art);
    assert_template(&art, &cylinder(&g, Corner::new(5, 5), 20), None);
}

// CRB — Magic: Aiming a Spell — Cone: "a quarter-circle in the direction you designate; it
// starts from any corner of your square". A 15-ft cone aimed east from the caster at (3,1):
// from the corner <3,2>, symmetric about that row line, never the caster's square.
#[test]
fn crb_cone_15_ft_orthogonal() {
    let art = [
        ".......", "...X...", "..XXX..", ".@XXX..", "...X...", ".......",
    ];
    let g = grid_of(&art);
    assert_eq!(origin_corner(c(3, 1), 1, c(3, 4)), Corner::new(3, 2));
    let cells = cone(&g, c(3, 1), 1, c(3, 4), 15);
    assert_template(&art, &cells, Some((c(3, 1), 1)));
    // Aimed at the adjacent square, the cone is the same.
    assert_eq!(cone(&g, c(3, 1), 1, c(3, 2), 15), cells);
}

// CRB — Magic: Aiming a Spell — Cone, aimed diagonally: the quadrant beyond the caster's
// corner <2,2>, cut at 15 ft (5-10-5: 3 squares straight, 2 diagonally).
#[test]
fn crb_cone_15_ft_diagonal() {
    let art = [
        ".......", ".@.....", "..XXX..", "..XX...", "..X....", ".......",
    ];
    let g = grid_of(&art);
    assert_eq!(origin_corner(c(1, 1), 1, c(4, 4)), Corner::new(2, 2));
    assert_template(&art, &cone(&g, c(1, 1), 1, c(4, 4), 15), Some((c(1, 1), 1)));
}

// CRB — Magic: Aiming a Spell — Cone from a Large caster (2×2) aimed north at (0,4): from the
// footprint corner nearest that square, <4,5>, symmetric about its column line; 15 ft.
#[test]
fn crb_cone_from_a_large_caster() {
    let art = [
        "........", "....XX..", "...XXXX.", "....XX..", "...@@...", "...@@...",
    ];
    let g = grid_of(&art);
    assert_eq!(origin_corner(c(4, 3), 2, c(0, 4)), Corner::new(4, 5));
    assert_template(&art, &cone(&g, c(4, 3), 2, c(0, 4), 15), Some((c(4, 3), 2)));
    // Aimed at one of its own squares: nothing.
    assert!(cone(&g, c(4, 3), 2, c(5, 4), 15).is_empty());
}

// CRB — Magic: Aiming a Spell — Cone ("won't go around corners"; Line of Effect: a cone
// affects only what it has line of effect to from its starting point) and never the caster.
#[test]
fn crb_cone_blocked_by_a_wall_and_never_the_caster() {
    // The open 20-ft cone east from <3,2> has 14 squares (columns of 2, 4, 6, 2); the wall
    // block hides the four squares behind it; lines grazing its corners still pass.
    let art = [
        "....X...", "...XX...", "..X#....", ".@X#....", "...XX...", "....X...", "........",
    ];
    let g = grid_of(&art);
    let cells = cone(&g, c(3, 1), 1, c(3, 5), 20);
    assert_template(&art, &cells, Some((c(3, 1), 1)));
    assert!(!cells.contains(&c(3, 1)));
    // Aimed at the caster's own square: nothing.
    assert!(cone(&g, c(3, 1), 1, c(3, 1), 20).is_empty());
    assert!(line(&g, c(3, 1), 1, c(3, 1), 20).is_empty());
}

// CRB — Magic: Aiming a Spell — Line: "starts from any corner of your square … affects all
// creatures in squares through which the line passes". 30 ft east: 6 squares.
#[test]
fn crb_line_30_ft_orthogonal() {
    let art = [
        "..........",
        "..........",
        "@XXXXXX...",
        "..........",
        "..........",
    ];
    let g = grid_of(&art);
    assert_eq!(origin_corner(c(2, 0), 1, c(2, 6)), Corner::new(2, 1));
    assert_template(&art, &line(&g, c(2, 0), 1, c(2, 6), 30), Some((c(2, 0), 1)));
    // Aimed at a farther square in the same row, the same line.
    assert_eq!(
        line(&g, c(2, 0), 1, c(2, 9), 30),
        line(&g, c(2, 0), 1, c(2, 6), 30)
    );
}

// CRB — Magic: Aiming a Spell — Line, diagonal: 30 ft is 4 diagonal squares (5-10-5).
#[test]
fn crb_line_30_ft_diagonal() {
    let art = [
        "@......", ".X.....", "..X....", "...X...", "....X..", ".......", ".......",
    ];
    let g = grid_of(&art);
    assert_template(&art, &line(&g, c(0, 0), 1, c(6, 6), 30), Some((c(0, 0), 1)));
}

// CRB — Magic: Aiming a Spell — Line: "extends to the limit of its range or until it strikes
// a barrier that blocks line of effect": the wall square and all beyond are out.
#[test]
fn crb_line_stopped_by_a_wall() {
    let art = [
        "..........",
        "..........",
        "@XXX#.....",
        "..........",
        "..........",
    ];
    let g = grid_of(&art);
    assert_template(&art, &line(&g, c(2, 0), 1, c(2, 6), 30), Some((c(2, 0), 1)));
    // Two walls touching diagonally: the diagonal line cannot slip between them.
    let art = ["@......", ".X.....", "..X#...", "..#....", "......."];
    let g = grid_of(&art);
    assert_template(&art, &line(&g, c(0, 0), 1, c(4, 4), 30), Some((c(0, 0), 1)));
}

// CRB — Magic: Aiming a Spell — Line aimed off-axis: the squares the ray from the corner
// through the aimed square's centre passes through.
#[test]
fn crb_line_off_axis() {
    // From <1,1> through the centre of (2,5): slope 1/3; 30 ft by the far-corner count ends
    // at (2,5) (the next square, (2,6), is 35 ft away).
    let art = ["@.........", ".XXX......", "....XX....", ".........."];
    let g = grid_of(&art);
    assert_eq!(origin_corner(c(0, 0), 1, c(2, 5)), Corner::new(1, 1));
    assert_template(&art, &line(&g, c(0, 0), 1, c(2, 5), 30), Some((c(0, 0), 1)));
}

// CRB — Combat: Cover — Cover and Reflex Saves: "+2 bonus on Reflex saves against attacks that
// originate or burst out from a point on the other side of the cover"; Partial Cover +1;
// Improved Cover +4 (the doubled bonus); Soft Cover: none (creatures are not terrain here).
#[test]
fn crb_reflex_cover_behind_a_low_wall() {
    let art = ["....=...", "....=...", "....=...", "....=...", "....=..."];
    let g = grid_of(&art);
    let o = Corner::new(2, 2);
    // Behind the low wall: standard cover, +2; the burst still reaches (a low wall does not
    // block line of effect).
    assert_eq!(reflex_cover_from(&g, o, c(2, 5), 1), 2);
    assert!(burst(&g, o, 20).contains(&c(2, 5)));
    // On the origin's side: none.
    assert_eq!(reflex_cover_from(&g, o, c(2, 3), 1), 0);
    assert_eq!(reflex_cover_from(&g, o, c(1, 1), 1), 0);
    // Partial (+2 AC) gives +1, improved (+8 AC) +4.
    let g = grid_of(&["....w...", "....w...", "....w...", "....w...", "....w..."]);
    assert_eq!(reflex_cover_from(&g, o, c(2, 5), 1), 1);
    let g = grid_of(&["....I...", "....I...", "....I...", "....I...", "....I..."]);
    assert_eq!(reflex_cover_from(&g, o, c(2, 5), 1), 4);
    // In the open: none.
    let g = grid_of(&["........"; 5]);
    assert_eq!(reflex_cover_from(&g, o, c(2, 5), 1), 0);
}

// CRB — Combat: Cover (a wall corner between the origin and part of the target) and Big and
// Little Creatures: a Large creature counts the lines to all its corners.
#[test]
fn crb_reflex_cover_from_a_wall_corner_and_a_large_creature() {
    let g = grid_of(&[
        "........", "........", "...#....", "........", "........", "........",
    ]);
    let o = Corner::new(1, 1);
    // Part of the lines to (3,5) cross the wall square: cover +4 AC, +2 Reflex.
    assert_eq!(reflex_cover_from(&g, o, c(3, 5), 1), 2);
    assert_eq!(reflex_cover_from(&g, o, c(0, 5), 1), 0);
    // A creature at (1,5): lines from <1,1> to its corners stay in row 1, no cover; a Large
    // creature anchored there also has corners on row line 3, whose lines cross the wall.
    assert_eq!(reflex_cover_from(&g, o, c(1, 5), 1), 0);
    assert_eq!(reflex_cover_from(&g, o, c(1, 5), 2), 2);
}

// CRB — Magic: Aiming a Spell — Line of Effect: the caster needs line of effect to the point
// of origin; a burst aimed at a square uses its top-left intersection.
#[test]
fn crb_line_of_effect_to_the_point_of_origin() {
    let g = grid_of(&["......", "..#...", "..#...", "..#...", "......"]);
    assert_eq!(corner_of(c(2, 4)), Corner::new(2, 4));
    assert!(!line_of_effect_to_corner(&g, c(2, 0), 1, Corner::new(2, 4)));
    assert!(line_of_effect_to_corner(&g, c(2, 0), 1, Corner::new(1, 2)));
    assert!(line_of_effect_to_corner(&g, c(2, 0), 1, Corner::new(3, 1)));
    // A Large caster sees past the wall's end.
    assert!(line_of_effect_to_corner(&g, c(3, 0), 2, Corner::new(5, 5)));
    assert!(!line_of_effect_to_corner(&g, c(2, 0), 1, Corner::new(3, 4)));
}

// Consistency over a pseudo-random map: every template is sorted, on the map, off the walls; a
// spread holds its burst ("extends out like a burst but can turn corners"), a burst lies in its
// cylinder (the same circle without line of effect), a cone and a line never hold the caster
// and lie in the disc of their length around their origin.
#[test]
fn crb_templates_consistent_on_a_random_map() {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move |m: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % m
    };
    let (rows, cols) = (14, 17);
    let art: Vec<String> = (0..rows)
        .map(|_| {
            (0..cols)
                .map(|_| match next(9) {
                    0 => '#',
                    1 => '=',
                    _ => '.',
                })
                .collect()
        })
        .collect();
    let art: Vec<&str> = art.iter().map(String::as_str).collect();
    let g = grid_of(&art);
    let ok = |cells: &[Cell]| {
        let mut s = cells.to_vec();
        s.sort();
        s.dedup();
        assert_eq!(s, cells);
        assert!(cells.iter().all(|&c| g.in_bounds(c) && !g.blocks_los_at(c)));
    };
    for _ in 0..200 {
        let o = Corner::new(next(rows as u64 + 1) as i32, next(cols as u64 + 1) as i32);
        let ft = 5 * next(9) as u32;
        let (b, s, cy) = (burst(&g, o, ft), spread(&g, o, ft), cylinder(&g, o, ft));
        ok(&b);
        ok(&s);
        ok(&cy);
        assert!(
            b.iter().all(|c| s.contains(c) && cy.contains(c)),
            "{o} {ft}"
        );
        assert!(b.iter().all(|&c| line_of_effect_from(&g, o, c)));
        let caster = c(next(rows as u64) as i32, next(cols as u64) as i32);
        let side = 1 + next(2) as i32;
        let toward = c(next(rows as u64) as i32, next(cols as u64) as i32);
        let oc = origin_corner(caster, side, toward);
        let disc = cylinder(&g, oc, ft);
        for cells in [
            cone(&g, caster, side, toward, ft),
            line(&g, caster, side, toward, ft),
        ] {
            ok(&cells);
            assert!(cells.iter().all(|c| disc.contains(c)));
            assert!(cells.iter().all(|c| {
                !(caster.row..caster.row + side).contains(&c.row)
                    || !(caster.col..caster.col + side).contains(&c.col)
            }));
        }
    }
}
