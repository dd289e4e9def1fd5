/* The registry of contact sub-models, and the resolution of a contact-law
 * def (names and parameters given by a caller or a scene) into a law.
 *
 * To add a model: write its table entry (FD_SUBMODEL, model.h) and kernel in
 * its own file under src/contact/, and list its table here. Nothing else
 * changes: the scene loader, `fricdem models` and the docs read the same
 * table.
 *
 * Must not touch: the world, the steppers, files (the steppers call the laws). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "contact/model.h"
#include "core/error.h"

extern const fd_submodel fd_normal_submodels[];
extern const int fd_normal_submodel_count;
extern const fd_submodel fd_friction_submodels[];
extern const int fd_friction_submodel_count;
extern const fd_submodel fd_sds_submodels[];
extern const int fd_sds_submodel_count;
extern const fd_submodel fd_mindlin_submodels[];
extern const int fd_mindlin_submodel_count;
extern const fd_submodel fd_sds_torque_submodels[];
extern const int fd_sds_torque_submodel_count;
extern const fd_submodel fd_pfc_submodels[];
extern const int fd_pfc_submodel_count;
extern const fd_submodel fd_cone_submodels[];
extern const int fd_cone_submodel_count;

typedef struct submodel_group {
    const fd_submodel* models;
    const int* count;
} submodel_group;

static const submodel_group groups[] = {
    {fd_normal_submodels, &fd_normal_submodel_count},
    {fd_friction_submodels, &fd_friction_submodel_count},
    {fd_sds_submodels, &fd_sds_submodel_count},
    {fd_mindlin_submodels, &fd_mindlin_submodel_count},
    {fd_sds_torque_submodels, &fd_sds_torque_submodel_count},
    {fd_pfc_submodels, &fd_pfc_submodel_count},
    {fd_cone_submodels, &fd_cone_submodel_count},
};
enum { GROUP_COUNT = (int)(sizeof groups / sizeof groups[0]) };

int fd_submodel_count(void)
{
    int count = 0;
    for (int g = 0; g < GROUP_COUNT; ++g) {
        count += *groups[g].count;
    }
    return count;
}

const fd_submodel* fd_submodel_at(int index)
{
    for (int g = 0; g < GROUP_COUNT; ++g) {
        if (index < *groups[g].count) {
            return index >= 0 ? &groups[g].models[index] : NULL;
        }
        index -= *groups[g].count;
    }
    return NULL;
}

const fd_submodel* fd_submodel_find(fd_mechanism mechanism, const char* name)
{
    int count = fd_submodel_count();
    for (int i = 0; i < count; ++i) {
        const fd_submodel* model = fd_submodel_at(i);
        if (model->info.mechanism == mechanism && name != NULL && strcmp(model->info.name, name) == 0) {
            return model;
        }
    }
    return NULL;
}

int fd_model_count(void) { return fd_submodel_count(); }

const fd_model_info* fd_model_at(int index)
{
    const fd_submodel* model = fd_submodel_at(index);
    return model != NULL ? &model->info : NULL;
}

const fd_model_info* fd_model_find(fd_mechanism mechanism, const char* name)
{
    const fd_submodel* model = fd_submodel_find(mechanism, name);
    return model != NULL ? &model->info : NULL;
}

static bool is_none(const char* name) { return name == NULL || name[0] == '\0' || strcmp(name, "none") == 0; }

/* "a, b, c" list of the models of a mechanism, for error messages. */
static void list_models(fd_mechanism mechanism, char* text, size_t size)
{
    size_t used = 0;
    text[0] = '\0';
    int count = fd_submodel_count();
    for (int i = 0; i < count; ++i) {
        const fd_submodel* model = fd_submodel_at(i);
        if (model->info.mechanism == mechanism && used < size) {
            used += (size_t)snprintf(text + used, size - used, "%s%s", used ? ", " : "", model->info.name);
        }
    }
    if (mechanism != FD_MECHANISM_NORMAL && used < size) {
        snprintf(text + used, size - used, "%snone", used ? ", " : "");
    }
}

static void list_params(const fd_model_info* info, char* text, size_t size)
{
    size_t used = 0;
    text[0] = '\0';
    for (int p = 0; p < info->param_count && used < size; ++p) {
        used += (size_t)snprintf(text + used, size - used, "%s%s", p ? ", " : "", info->params[p].name);
    }
    if (info->param_count == 0) {
        snprintf(text, size, "(none)");
    }
}

fd_status fd_contact_law_resolve(fd_contact_law* law, const fd_contact_law_def* def, const fd_material* a,
                                 const fd_material* b, int material_a, int material_b)
{
    memset(law, 0, sizeof *law);
    law->material_a = material_a;
    law->material_b = material_b;
    for (int m = 0; m < FD_MECHANISM_COUNT; ++m) {
        const fd_submodel_def* sub = &def->submodel[m];
        const char* mechanism = fd_mechanism_name((fd_mechanism)m);
        /* "none" is a normal model of its own (materials that never touch):
         * only a missing name leaves the normal mechanism out. */
        bool absent = m == FD_MECHANISM_NORMAL ? sub->model == NULL || sub->model[0] == '\0' : is_none(sub->model);
        if (absent) {
            if (m == FD_MECHANISM_NORMAL) {
                char names[512];
                list_models(FD_MECHANISM_NORMAL, names, sizeof names);
                return fd_fail(FD_ERR_INVALID_ARGUMENT, "a contact law needs a normal model (one of: %s)", names);
            }
            if (sub->param_count > 0) {
                return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s model 'none' takes no parameters (got '%s')", mechanism,
                               sub->params[0].name);
            }
            continue;
        }
        const fd_submodel* model = fd_submodel_find((fd_mechanism)m, sub->model);
        if (model == NULL) {
            char names[512];
            list_models((fd_mechanism)m, names, sizeof names);
            return fd_fail(FD_ERR_NOT_FOUND, "unknown %s model '%s' (known: %s)", mechanism, sub->model, names);
        }
        const fd_model_info* info = &model->info;
        double* values = law->params[m];
        bool given[FD_MAX_SUBMODEL_PARAMS] = {false};
        for (int p = 0; p < info->param_count; ++p) {
            values[p] = info->params[p].default_value;
        }
        if (sub->param_count < 0 || sub->param_count > FD_MAX_SUBMODEL_PARAMS) {
            return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s model '%s': param_count %d out of range", mechanism,
                           info->name, sub->param_count);
        }
        for (int g = 0; g < sub->param_count; ++g) {
            const fd_param* param = &sub->params[g];
            int found = -1;
            for (int p = 0; p < info->param_count; ++p) {
                if (param->name != NULL && strcmp(param->name, info->params[p].name) == 0) {
                    found = p;
                }
            }
            if (found < 0) {
                char names[512];
                list_params(info, names, sizeof names);
                return fd_fail(FD_ERR_NOT_FOUND, "%s model '%s' has no parameter '%s' (parameters: %s)", mechanism,
                               info->name, param->name ? param->name : "(null)", names);
            }
            if (given[found]) {
                return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s model '%s': parameter '%s' given twice", mechanism,
                               info->name, param->name);
            }
            const fd_param_info* table = &info->params[found];
            if (!isfinite(param->value) || param->value < table->min_value || param->value > table->max_value) {
                return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s model '%s': %s = %g %s is out of range [%g, %g]", mechanism,
                               info->name, table->name, param->value, table->unit, table->min_value, table->max_value);
            }
            given[found] = true;
            values[found] = param->value;
        }
        for (int p = 0; p < info->param_count; ++p) {
            if (isnan(values[p])) {
                return fd_fail(FD_ERR_INVALID_ARGUMENT, "%s model '%s': required parameter '%s' (%s) is missing",
                               mechanism, info->name, info->params[p].name, info->params[p].unit);
            }
        }
        if (model->resolve != NULL) {
            fd_status status = model->resolve(values, a, b, law->derived[m]);
            if (status != FD_OK) {
                return status;
            }
        }
        law->submodel[m] = model;
        law->history_offset[m] = law->history_size;
        law->history_size += model->history_size;
    }
    if (fd_law_never_touches(law)) {
        for (int m = FD_MECHANISM_SLIDE; m < FD_MECHANISM_COUNT; ++m) {
            if (law->submodel[m] != NULL) {
                return fd_fail(FD_ERR_INVALID_ARGUMENT,
                               "normal model 'none' (the materials never touch) takes no %s model (got '%s')",
                               fd_mechanism_name((fd_mechanism)m), law->submodel[m]->info.name);
            }
        }
        return FD_OK;
    }
    return fd_friction_check_law(law);
}
