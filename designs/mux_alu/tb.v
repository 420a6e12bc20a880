// Self-checking testbench for mux_alu: every opcode on directed corners, every shift amount, random operands.
`timescale 1ns/1ps
module tb_mux_alu;
    reg  [15:0] a, b, c;
    reg  [2:0]  op;
    wire [15:0] y;
    reg  [15:0] m_y;
    integer errors, i, k, seed, s;

    mux_alu dut (.a(a), .b(b), .c(c), .op(op), .y(y));

    task apply(input [15:0] x, input [15:0] z, input [15:0] w, input [2:0] o);
        begin
            a = x; b = z; c = w; op = o;
            #1;
            case (o)   // the model computes through 32-bit integers, bit by bit for the shifts
                3'd0: m_y = (x + z) % 65536;
                3'd1: m_y = (65536 + x - z) % 65536;
                3'd2: m_y = (x + w) % 65536;
                3'd3: m_y = (65536 + w - z) % 65536;
                3'd4: m_y = (x * (1 << z[3:0])) % 65536;
                3'd5: m_y = x / (1 << z[3:0]);
                3'd6: begin
                    m_y = x;
                    for (s = 0; s < z[3:0]; s = s + 1) m_y = {m_y[15], m_y[15:1]};
                end
                default: m_y = w / (1 << x[3:0]);
            endcase
            if (y !== m_y) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH op=%0d a=%h b=%h c=%h: got y=%h, expected %h", op, a, b, c, y, m_y);
            end
        end
    endtask

    initial begin
        errors = 0; seed = 5;
        for (k = 0; k < 8; k = k + 1) begin
            apply(16'h0000, 16'h0000, 16'h0000, k);
            apply(16'hFFFF, 16'hFFFF, 16'hFFFF, k);
            apply(16'h8000, 16'h0001, 16'h7FFF, k);
            apply(16'h7FFF, 16'h8000, 16'h8001, k);
            apply(16'h1234, 16'h5678, 16'h9ABC, k);
            for (i = 0; i < 16; i = i + 1) begin
                apply(16'h8001 ^ (16'd1 << i), i, 16'hC003 >> i, k);
                apply(16'h7FF0 | i, 16'hFFF0 | i, 16'h8000 | (16'd1 << i), k);
            end
        end
        for (i = 0; i < 4000; i = i + 1)
            apply($random(seed), $random(seed), $random(seed), $random(seed));
        if (errors == 0) $display("===========Your Design Passed===========");
        else $display("===========Test completed with %0d failures===========", errors);
        $finish;
    end
endmodule
