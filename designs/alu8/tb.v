// Self-checking testbench for alu8: every opcode on directed corners and random operands.
`timescale 1ns/1ps
module tb_alu8;
    reg  [7:0] a, b;
    reg  [2:0] op;
    wire [7:0] y;
    wire       carry, zero;
    reg  [7:0] m_y;
    reg        m_c;
    reg  [8:0] wide;
    integer errors, i, k, s, seed, sa, sb;

    alu8 dut (.a(a), .b(b), .op(op), .y(y), .carry(carry), .zero(zero));

    task model;
        begin
            m_c = 1'b0;
            // signed values through integers, so the model does not reuse the design's idiom
            sa = a[7] ? a - 256 : a;
            sb = b[7] ? b - 256 : b;
            case (op)
                0: begin wide = a + b; m_y = wide[7:0]; m_c = wide[8]; end
                1: begin m_y = a + (~b) + 8'd1; m_c = (b > a); end
                2: m_y = a & b;
                3: m_y = a | b;
                4: m_y = a ^ b;
                5: begin m_y = a; for (s = 0; s < b[2:0]; s = s + 1) m_y = {m_y[6:0], 1'b0}; end
                6: begin m_y = a; for (s = 0; s < b[2:0]; s = s + 1) m_y = {1'b0, m_y[7:1]}; end
                default: m_y = (sa < sb) ? 8'd1 : 8'd0;
            endcase
        end
    endtask

    task apply(input [7:0] x, input [7:0] z, input [2:0] o);
        begin
            a = x; b = z; op = o;
            #1;
            model;
            if (y !== m_y || carry !== m_c || zero !== (m_y == 8'd0)) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH op=%b a=%h b=%h: got y=%h carry=%b zero=%b, expected y=%h carry=%b zero=%b",
                             op, a, b, y, carry, zero, m_y, m_c, m_y == 8'd0);
            end
        end
    endtask

    initial begin
        errors = 0; seed = 88;
        for (i = 0; i < 8; i = i + 1) begin
            apply(8'h00, 8'h00, i); apply(8'hFF, 8'h01, i); apply(8'h01, 8'hFF, i);
            apply(8'h80, 8'h7F, i); apply(8'h7F, 8'h80, i); apply(8'h80, 8'h80, i);
            apply(8'hFF, 8'hFF, i); apply(8'h55, 8'hAA, i); apply(8'h81, 8'h0F, i);
            for (k = 0; k < 8; k = k + 1) apply(8'hB3, 8'hF8 | k, i);
        end
        for (i = 0; i < 4000; i = i + 1) apply($random(seed), $random(seed), $random(seed));
        if (errors == 0) $display("===========Your Design Passed===========");
        else $display("===========Test completed with %0d failures===========", errors);
        $finish;
    end
endmodule
