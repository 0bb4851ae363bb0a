-- evalkit's language server for the rule config files, in Neovim 0.7 or later, without plugins.
--
-- Use: copy this file to ~/.config/nvim/plugin/evalkit.lua (or `dofile()` it from init.lua). Set
-- vim.g.evalkit_cmd = { "/path/to/.venv/bin/evalkit", "lsp" } when evalkit is not on PATH, and
-- vim.g.evalkit_init_options = { samples = "samples" } for the server's options (README: Editors).
--
-- The workspace folder is found from the buffer's absolute path (the nearest folder above it holding
-- samples/ or .git), so `nvim configs/main/rules.yaml` gets the same one as an absolute path does. Code
-- lenses are asked for once the server has attached (not on BufEnter, which comes before it), then after
-- each pause in typing.

local markers = { "samples", ".git" }
local clients = {} -- workspace folder -> client id: one server per workspace

local function workspace_of(file)
  local start = vim.fn.fnamemodify(file, ":p:h")
  local folder = start
  while true do
    for _, marker in ipairs(markers) do
      if vim.fn.isdirectory(folder .. "/" .. marker) == 1 then
        return folder
      end
    end
    local parent = vim.fn.fnamemodify(folder, ":h")
    if parent == folder then
      return start
    end
    folder = parent
  end
end

local function refresh_lenses_of(bufnr)
  if vim.api.nvim_buf_is_valid(bufnr) and vim.api.nvim_get_current_buf() == bufnr then
    vim.lsp.codelens.refresh()
  end
end

local function on_attach(_, bufnr)
  refresh_lenses_of(bufnr)
  vim.api.nvim_create_autocmd({ "BufEnter", "InsertLeave", "TextChanged", "CursorHold" }, {
    buffer = bufnr,
    callback = function()
      refresh_lenses_of(bufnr)
    end,
  })
end

local function attach(bufnr)
  local file = vim.api.nvim_buf_get_name(bufnr)
  if file == "" then
    return
  end
  local root = workspace_of(file)
  local id = clients[root]
  if id == nil or vim.lsp.get_client_by_id(id) == nil then
    id = vim.lsp.start_client({
      name = "evalkit",
      cmd = vim.g.evalkit_cmd or { "evalkit", "lsp" },
      root_dir = root,
      workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
      init_options = vim.g.evalkit_init_options or { dryRun = true },
      -- say that this client fetches lenses again when asked (the handler below), so the server asks
      capabilities = vim.tbl_deep_extend(
        "force",
        vim.lsp.protocol.make_client_capabilities(),
        { workspace = { codeLens = { refreshSupport = true } } }
      ),
      on_attach = on_attach,
      handlers = {
        -- the server asks for fresh lenses when a dry run ends (Neovim 0.7 has no handler of its own)
        ["workspace/codeLens/refresh"] = function()
          refresh_lenses_of(vim.api.nvim_get_current_buf())
          return vim.NIL
        end,
      },
    })
    clients[root] = id
  end
  if id ~= nil then
    vim.lsp.buf_attach_client(bufnr, id)
  end
end

vim.api.nvim_create_autocmd("FileType", {
  pattern = "yaml",
  callback = function(args)
    attach(args.buf)
  end,
})
