/* The closest point of a mesh patch to a sphere centre, and which patch owns
 * a contact on a feature that several patches share.
 *
 * Closest point of a triangle (Ericson, Real-Time Collision Detection, 2005,
 * Sec. 5.1.5, reorganised): the centre's projection onto the triangle's plane
 * has barycentric coordinates (1 - v - w, v, w); when all three are >= 0 the
 * projection is the closest point (a face contact, whose normal is the face
 * normal exactly, so that a finely triangulated plane has no bumps); else the
 * closest point is on the boundary: the nearest of the closest points of the
 * three edge segments (an edge contact, or a vertex contact where the segment
 * parameter is clamped to an end). A projection outside the triangle by no
 * more than the mesh's round-off tolerance counts as inside: over an edge or
 * a vertex shared by coplanar triangles the direction from the edge point to
 * the centre would otherwise carry the coordinates' round-off divided by the
 * gap (1e-13 at a gap of 1e-3 on a 1 m mesh), a bump.
 *
 * A patch is one contact body, so its closest point is the nearest over its
 * triangles, ties going to the lowest triangle index; the comparison is on
 * (squared distance, triangle) exactly, with no tolerance, so that the
 * answer is deterministic (a tolerance would make ties intransitive).
 *
 * Ownership between patches. Sharp edges split a surface into patches, and
 * a sphere near a sharp edge or corner is close to several of them:
 *   - at a concave edge (inside a box) it touches each face at an interior
 *     point, and each face is a true contact;
 *   - at a convex edge or vertex (outside a box) every patch's closest point
 *     is the same edge or vertex point, one contact counted several times;
 *   - above a face near a convex edge, the neighbour's closest point is on
 *     the edge, further than the face's: not a contact at all.
 * The rule that sorts these: a hit of patch A on a feature f (edge or vertex)
 * A shares with other patches is dropped when another patch B sharing f is
 * closer over its triangles incident to f, or as close (within the mesh's
 * round-off tolerance) and of a lower index. "On f" is decided by distance
 * too: f is at most the tolerance further from the centre than A's closest
 * point. Deciding it by position instead would leave a band beside a convex
 * edge where the face's point is a hair off the edge (so never dropped) while
 * the neighbour's edge point is within the tolerance as close (so kept on a
 * lower index): two contacts. With both tests on distances the two patches
 * make complementary decisions. Only the incident triangles of B count, so
 * that a far part of B (one curving round) cannot take a contact it is not
 * part of.
 *
 * Must not touch: contact laws, the world, the steppers. */
#include "collide/mesh_internal.h"

typedef struct triangle_point {
    fd_vec3 point;
    double distance_squared;
    double signed_distance; /* (centre - a) . normal: which side of the plane the centre is on */
    fd_wall_feature feature;
} triangle_point;

/* The closest point of the segment start + t edge, t in [0, 1], to the point
 * start + offset; *at_end is whether t was clamped to an end. */
static fd_vec3 segment_closest(fd_vec3 start, fd_vec3 offset, fd_vec3 edge, double edge_squared, bool* at_end)
{
    double t = fd_v3_dot(offset, edge) / edge_squared;
    *at_end = !(t > 0.0 && t < 1.0);
    t = t > 0.0 ? (t < 1.0 ? t : 1.0) : 0.0;
    return fd_v3_mul_add(start, t, edge);
}

/* The closest point of a triangle to the centre; a projection outside the
 * triangle by at most tolerance counts as inside (see the top). */
static void closest_on_triangle(const fd_mesh_triangle_geometry* g, fd_vec3 centre, double tolerance,
                                triangle_point* out)
{
    fd_vec3 offset = fd_v3_sub(centre, g->a);
    double side = fd_v3_dot(offset, g->normal);
    fd_vec3 projection = fd_v3_mul_add(centre, -side, g->normal);
    out->signed_distance = side;
    double along_ab = fd_v3_dot(offset, g->edge_ab);
    double along_ac = fd_v3_dot(offset, g->edge_ac);
    double v = (g->ac_ac * along_ab - g->ab_ac * along_ac) * g->inverse_determinant;
    double w = (g->ab_ab * along_ac - g->ab_ac * along_ab) * g->inverse_determinant;
    if (v >= 0.0 && w >= 0.0 && v + w <= 1.0) {
        out->point = projection;
        out->distance_squared = side * side;
        out->feature = FD_WALL_FACE;
        return;
    }
    fd_vec3 b = fd_v3_add(g->a, g->edge_ab);
    bool at_end[3];
    fd_vec3 candidates[3] = {
        segment_closest(g->a, offset, g->edge_ab, g->ab_ab, &at_end[0]),
        segment_closest(b, fd_v3_sub(offset, g->edge_ab), g->edge_bc, g->bc_bc, &at_end[1]),
        segment_closest(g->a, offset, g->edge_ac, g->ac_ac, &at_end[2]),
    };
    int best = 0;
    double best_squared = INFINITY;
    for (int k = 0; k < 3; ++k) {
        double squared = fd_v3_length_squared(fd_v3_sub(centre, candidates[k]));
        if (squared < best_squared) {
            best_squared = squared;
            best = k;
        }
    }
    if (fd_v3_distance(projection, candidates[best]) <= tolerance) {
        out->point = projection;
        out->distance_squared = side * side;
        out->feature = FD_WALL_FACE;
        return;
    }
    out->point = candidates[best];
    out->distance_squared = best_squared;
    out->feature = at_end[best] ? FD_WALL_VERTEX : FD_WALL_EDGE;
}

/* ---------------------------------------------------------------- ownership */

static fd_vec3 mesh_vertex(const fd_mesh* mesh, int index)
{
    const double* p = mesh->vertices + 3 * index;
    return fd_v3(p[0], p[1], p[2]);
}

/* Whether patch keeps its hit at distance gap on a feature whose incident
 * triangles are list[count] (sorted by patch): no other patch there is
 * closer, or as close and of a lower index. */
static bool keeps_feature(const fd_mesh* mesh, int patch, const fd_mesh_incidence* list, int count, fd_vec3 centre,
                          double gap)
{
    for (int i = 0; i < count;) {
        int other = list[i].patch;
        double nearest_squared = INFINITY;
        int j = i;
        for (; j < count && list[j].patch == other; ++j) {
            if (other != patch) {
                triangle_point near;
                closest_on_triangle(&mesh->geometry[list[j].triangle], centre, mesh->tolerance, &near);
                nearest_squared = fmin(nearest_squared, near.distance_squared);
            }
        }
        if (other != patch) {
            double nearest = sqrt(nearest_squared);
            if (nearest < gap - mesh->tolerance || (nearest <= gap + mesh->tolerance && other < patch)) {
                return false;
            }
        }
        i = j;
    }
    return true;
}

/* Whether patch owns its hit at distance gap on triangle t: checks each
 * feature of t shared with other patches that is as close to the centre as
 * the hit, to the tolerance. */
static bool owns_hit(const fd_mesh* mesh, int patch, int t, fd_vec3 centre, double gap)
{
    unsigned shared = mesh->shared[t];
    if (shared == 0) {
        return true;
    }
    const int* v = mesh->triangles + 3 * t;
    double reach = gap + mesh->tolerance;
    for (int k = 0; k < 3; ++k) {
        if (shared & (FD_MESH_SHARED_VERTEX << k)) {
            if (fd_v3_distance(centre, mesh_vertex(mesh, v[k])) <= reach) {
                int first = mesh->vertex_first[v[k]];
                if (!keeps_feature(mesh, patch, mesh->vertex_incidence + first, mesh->vertex_first[v[k] + 1] - first,
                                   centre, gap)) {
                    return false;
                }
            }
        }
    }
    for (int k = 0; k < 3; ++k) {
        if (shared & (FD_MESH_SHARED_EDGE << k)) {
            fd_vec3 start = mesh_vertex(mesh, v[k]);
            fd_vec3 edge = fd_v3_sub(mesh_vertex(mesh, v[(k + 1) % 3]), start);
            bool at_end;
            fd_vec3 nearest =
                segment_closest(start, fd_v3_sub(centre, start), edge, fd_v3_length_squared(edge), &at_end);
            if (fd_v3_distance(centre, nearest) <= reach) {
                int e = mesh->triangle_edges[3 * t + k];
                int first = mesh->edge_first[e];
                if (!keeps_feature(mesh, patch, mesh->edge_incidence + first, mesh->edge_first[e + 1] - first, centre,
                                   gap)) {
                    return false;
                }
            }
        }
    }
    return true;
}

/* ---------------------------------------------------------------- query */

static bool boxes_overlap(const fd_mesh_box* a, fd_vec3 min, fd_vec3 max)
{
    return a->min.x <= max.x && a->max.x >= min.x && a->min.y <= max.y && a->max.y >= min.y && a->min.z <= max.z &&
           a->max.z >= min.z;
}

bool fd_mesh_patch_closest(const fd_mesh* mesh, int patch, fd_vec3 centre, double reach, fd_wall_hit* hit)
{
    if (patch < 0 || patch >= mesh->patch_count || !(reach > 0.0) || !fd_v3_is_finite(centre)) {
        return false;
    }
    const fd_mesh_grid* grid = &mesh->grids[patch];
    fd_vec3 query_min = fd_v3(centre.x - reach, centre.y - reach, centre.z - reach);
    fd_vec3 query_max = fd_v3(centre.x + reach, centre.y + reach, centre.z + reach);
    if (!boxes_overlap(&grid->box, query_min, query_max)) {
        return false;
    }
    int low[3], high[3];
    for (int axis = 0; axis < 3; ++axis) {
        low[axis] = fd_mesh_grid_cell(grid, axis, fd_v3_component(query_min, axis));
        high[axis] = fd_mesh_grid_cell(grid, axis, fd_v3_component(query_max, axis));
    }
    double best_squared = reach * reach;
    int best = -1;
    triangle_point best_point = {0};
    for (int k = low[2]; k <= high[2]; ++k) {
        for (int j = low[1]; j <= high[1]; ++j) {
            for (int i = low[0]; i <= high[0]; ++i) {
                int cell = i + grid->cells[0] * (j + grid->cells[1] * k);
                for (int entry = grid->cell_first[cell]; entry < grid->cell_first[cell + 1]; ++entry) {
                    int t = grid->cell_triangles[entry];
                    const fd_mesh_box* box = &mesh->triangle_box[t];
                    if (!boxes_overlap(box, query_min, query_max)) {
                        continue;
                    }
                    /* A triangle spanning several cells is tested once: in the
                     * first visited cell it lies in, the one holding the low
                     * corner of its box's overlap with the query's. */
                    if (fd_mesh_grid_cell(grid, 0, fmax(box->min.x, query_min.x)) != i ||
                        fd_mesh_grid_cell(grid, 1, fmax(box->min.y, query_min.y)) != j ||
                        fd_mesh_grid_cell(grid, 2, fmax(box->min.z, query_min.z)) != k) {
                        continue;
                    }
                    const fd_mesh_triangle_geometry* g = &mesh->geometry[t];
                    double side = fd_v3_dot(fd_v3_sub(centre, g->a), g->normal);
                    if (side * side > best_squared) {
                        continue; /* the plane alone is further than the best */
                    }
                    triangle_point candidate;
                    closest_on_triangle(g, centre, mesh->tolerance, &candidate);
                    if (candidate.distance_squared < best_squared ||
                        (candidate.distance_squared == best_squared && t < best)) {
                        best_squared = candidate.distance_squared;
                        best = t;
                        best_point = candidate;
                    }
                }
            }
        }
    }
    if (best < 0) {
        return false;
    }
    double gap = sqrt(best_squared);
    if (!(gap < reach) || !owns_hit(mesh, patch, best, centre, gap)) {
        return false;
    }
    fd_vec3 face_normal = mesh->geometry[best].normal;
    fd_vec3 facing = best_point.signed_distance >= 0.0 ? face_normal : fd_v3_neg(face_normal);
    /* A face's normal is exact; an edge or vertex gives the direction to the
     * centre, which round-off spoils when the centre is on the surface. */
    fd_vec3 normal = best_point.feature == FD_WALL_FACE || gap <= mesh->tolerance
                         ? facing
                         : fd_v3_scale(1.0 / gap, fd_v3_sub(centre, best_point.point));
    hit->point = best_point.point;
    hit->normal = normal;
    hit->gap = gap;
    hit->curvature[0] = 0.0;
    hit->curvature[1] = 0.0;
    hit->principal_dir[0] = fd_v3_any_orthogonal(normal);
    hit->principal_dir[1] = fd_v3_cross(normal, hit->principal_dir[0]);
    hit->feature = best_point.feature;
    hit->triangle = best;
    return true;
}
