"""Training modules for the stimulus chooser, written fresh (never from RTLLM, VerilogEval or the held-out corpus
modules): the shapes a verification engineer meets whose holes need a particular program. Command decoders
behind a valid/ready request (opcodes random values rarely hit), a stream header matcher (magic bytes, then a
payload count up to tlast), address-decoded register banks, timers with a long terminal count, a level
counter with full/empty. Each family draws its widths and literals from a seed.

    gen_modules(seed) -> {name: verilog text}     # one module per (family, variant); top = name
"""
import random


def cmd_decoder(name, r):
    op, f7 = r.randrange(256), r.randrange(256)
    arms = "\n".join(f"        3'd{k}: begin acc <= acc {r.choice(['+', '^', '-'])} req_arg; busy <= {k + 2}; end"
                     for k in sorted(r.sample(range(8), r.randint(3, 6))))
    return f"""module {name} (input clk, input rst, input req_valid, input [31:0] req_insn, input [31:0] req_arg,
  output reg req_ready, output reg [31:0] rsp_data, output reg rsp_wr);
  reg [31:0] acc; reg [3:0] busy;
  wire mine = req_insn[7:0] == 8'd{op} && req_insn[31:24] == 8'd{f7};
  always @(posedge clk) begin
    req_ready <= 0; rsp_wr <= 0;
    if (rst) begin acc <= 0; busy <= 0; end
    else if (busy != 0) begin busy <= busy - 1; if (busy == 1) begin req_ready <= 1; rsp_wr <= 1; rsp_data <= acc; end end
    else if (req_valid && mine) begin
      case (req_insn[14:12])
{arms}
        default: acc <= acc;
      endcase
    end
  end
endmodule
"""


def header_match(name, r):
    magic = [r.randrange(256) for _ in range(r.randint(2, 3))]
    states = "\n".join(f"        {i}: st <= (s_data == 8'h{m:02x}) ? {i + 1} : 0;" for i, m in enumerate(magic))
    n = len(magic)
    return f"""module {name} (input clk, input rst, input s_valid, input [7:0] s_data, input s_last, output s_ready,
  output reg hit, output reg [15:0] payload);
  reg [2:0] st; assign s_ready = 1'b1;
  always @(posedge clk) begin
    hit <= 0;
    if (rst) begin st <= 0; payload <= 0; end
    else if (s_valid) begin
      if (s_last) begin if (st == {n}) hit <= 1; st <= 0; end
      else case (st)
{states}
        {n}: payload <= payload + 1;
        default: st <= 0;
      endcase
    end
  end
endmodule
"""


def reg_bank(name, r):
    addrs = r.sample(range(0, 1 << 20, 4), r.randint(3, 6))
    wr = "\n".join(f"      20'h{a:05x}: r{i} <= wdata;" for i, a in enumerate(addrs))
    rd = "\n".join(f"      20'h{a:05x}: rdata <= r{i};" for i, a in enumerate(addrs))
    regs = ", ".join(f"r{i}" for i in range(len(addrs)))
    return f"""module {name} (input clk, input rst, input wen, input ren, input [19:0] addr, input [15:0] wdata,
  output reg [15:0] rdata, output reg err);
  reg [15:0] {regs};
  always @(posedge clk) begin
    err <= 0;
    if (rst) begin {' '.join(f'r{i} <= 0;' for i in range(len(addrs)))} end
    else if (wen) case (addr)
{wr}
      default: err <= 1;
    endcase
    else if (ren) case (addr)
{rd}
      default: err <= 1;
    endcase
  end
endmodule
"""


def timer(name, r):
    top = r.choice([700, 1500, 3000])
    return f"""module {name} (input clk, input rst, input en, input clr, output reg done, output reg [1:0] phase);
  reg [11:0] cnt;
  always @(posedge clk) begin
    if (rst || clr) begin cnt <= 0; done <= 0; phase <= 0; end
    else if (en) begin
      if (cnt == 12'd{top}) begin done <= 1; cnt <= 0; phase <= phase + 1; end
      else cnt <= cnt + 1;
      if (cnt == 12'd{top // 2}) phase <= phase ^ 2'b01;
    end
  end
endmodule
"""


def level(name, r):
    depth = r.choice([8, 16, 32])
    return f"""module {name} (input clk, input rst, input in_valid, output in_ready, input [7:0] in_data,
  output out_valid, input out_ready, output [7:0] out_data, output reg overflow);
  reg [7:0] mem [0:{depth - 1}]; reg [5:0] count; reg [4:0] rp, wp;
  wire full = count == {depth}, empty = count == 0;
  assign in_ready = !full; assign out_valid = !empty; assign out_data = mem[rp[{(depth - 1).bit_length() - 1}:0]];
  always @(posedge clk) begin
    overflow <= 0;
    if (rst) begin count <= 0; rp <= 0; wp <= 0; end
    else begin
      if (in_valid && full) overflow <= 1;
      if (in_valid && !full) begin mem[wp[{(depth - 1).bit_length() - 1}:0]] <= in_data; wp <= wp + 1; end
      if (out_ready && !empty) rp <= rp + 1;
      count <= count + (in_valid && !full) - (out_ready && !empty);
    end
  end
endmodule
"""


def frame_count(name, r):
    big, long_ = r.randint(18, 30), r.randint(40, 60)
    return f"""module {name} (input clk, input rst, input s_valid, output s_ready, input [15:0] s_data, input s_last,
  output reg long_frame, output reg big_frame, output reg [15:0] sum);
  reg [7:0] beats; assign s_ready = 1'b1;
  always @(posedge clk) begin
    if (rst) begin beats <= 0; long_frame <= 0; big_frame <= 0; sum <= 0; end
    else if (s_valid) begin
      sum <= sum + s_data;
      beats <= s_last ? 8'd0 : beats + 1;
      if (beats == 8'd{long_}) long_frame <= 1;
      if (s_last && beats > 8'd{big}) big_frame <= ~big_frame;
    end
  end
endmodule
"""


def abortable(name, r):
    n = r.randint(20, 60)
    return f"""module {name} (input clk, input rst, input start, input [7:0] din, output reg busy, output reg [7:0] aborts,
  output reg [15:0] acc);
  reg [7:0] left;
  always @(posedge clk) begin
    if (rst) begin
      if (busy && left < 8'd{n // 2}) aborts <= aborts + 1;
      busy <= 0; left <= 0; acc <= 0;
    end
    else if (!busy && start) begin busy <= 1; left <= 8'd{n}; end
    else if (busy) begin acc <= acc + din; left <= left - 1; if (left == 1) busy <= 0; end
  end
  initial aborts = 0;
endmodule
"""


FAMILIES = {"cmd_decoder": cmd_decoder, "header_match": header_match, "reg_bank": reg_bank, "timer": timer,
            "level": level, "frame_count": frame_count, "abortable": abortable}


def gen_modules(seed: int = 0, per_family: int = 2) -> dict:
    r = random.Random(seed)
    return {f"gen_{f}_{k}": make(f"gen_{f}_{k}", r) for f, make in FAMILIES.items() for k in range(per_family)}
